package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import io.aloft.metrics.Http;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer group lag on a cluster of three broker processes (issue 17): a group whose coordinator
 * leads few or none of the partitions it commits still gets one lag series per partition, on its
 * coordinator and on no other broker, with the exact lag (each partition's high watermark minus
 * the committed offset), down to 0 once the consumer has read everything and committed.
 */
class GroupLagClusterTest {
    private static final String TOPIC = "lagged";
    private static final String GROUP = "lag-group";
    private static final int PARTITIONS = 6;
    private static final Pattern LAG = Pattern.compile(
            "^aloft_group_lag_records\\{group=\"([^\"]*)\",partition=\"(\\d+)\",topic=\"([^\"]*)\"} (\\S+)$",
            Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void everyCommittedPartition_hasExactLagOnTheCoordinatorOnly_whereverTheLeaderIs() throws Exception {
        Map<Integer, Integer> metricsPorts = new HashMap<>();
        Map<Integer, Map<String, String>> perNode = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            int port = TestQuorum.freePort();
            metricsPorts.put(id, port);
            perNode.put(id, Map.of("metrics.listener", "http://127.0.0.1:" + port));
        }
        try (TestCluster cluster = TestCluster.start(dir, 3, 0, Map.of("offsets.topic.num.partitions", "1",
                "auto.create.topics.enable", "false"), perNode);
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            List<TopicPartitionInfo> placed = cluster.partitions(TOPIC);

            // Partition p gets 2p + 3 records; the group commits p of them: lag p + 3.
            Map<TopicPartition, Long> ends = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                    new StringSerializer())) {
                for (int p = 0; p < PARTITIONS; p++) {
                    for (int i = 0; i < 2 * p + 3; i++) {
                        producer.send(new ProducerRecord<>(TOPIC, p, null, "r" + i)).get(60, TimeUnit.SECONDS);
                    }
                    ends.put(new TopicPartition(TOPIC, p), 2L * p + 3);
                }
            }
            Properties cp = new Properties();
            cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
            cp.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.assign(ends.keySet());
                Map<TopicPartition, OffsetAndMetadata> first = new HashMap<>();
                ends.keySet().forEach(tp -> first.put(tp, new OffsetAndMetadata(tp.partition())));
                consumer.commitSync(first);

                int coordinator = admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP)
                        .get(60, TimeUnit.SECONDS).coordinator().id();
                long elsewhere = placed.stream().map(p -> p.leader().id()).filter(l -> l != coordinator)
                        .distinct().count();
                assertEquals(2, elsewhere, "the partitions are led by both other brokers too: " + placed);

                Map<Integer, Long> expected = new TreeMap<>();
                ends.forEach((tp, end) -> expected.put(tp.partition(), end - tp.partition()));
                awaitLag(metricsPorts, coordinator, expected, "after the first commit");

                // The consumer reads everything and commits: lag 0 on every partition.
                int read = 0;
                long total = ends.values().stream().mapToLong(Long::longValue).sum();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                consumer.seekToBeginning(ends.keySet());
                while (read < total && System.nanoTime() < deadline) {
                    read += consumer.poll(Duration.ofMillis(200)).count();
                }
                assertEquals(total, read);
                consumer.commitSync();
                Map<Integer, Long> zero = new TreeMap<>();
                ends.keySet().forEach(tp -> zero.put(tp.partition(), 0L));
                awaitLag(metricsPorts, coordinator, zero, "after catching up");
            }
        }
    }

    /**
     * Waits (bounded: the lag is refreshed in the background every few seconds) until the
     * coordinator's /metrics shows exactly {@code expected} (partition to lag) for the group, and
     * checks that no other broker shows a series of the group.
     */
    private static void awaitLag(Map<Integer, Integer> metricsPorts, int coordinator, Map<Integer, Long> expected,
            String when) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<Integer, Long> served;
        do {
            served = groupLag(metricsPorts.get(coordinator));
            if (served.equals(expected)) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        } while (System.nanoTime() < deadline);
        assertEquals(expected, served, "lag on coordinator " + coordinator + " " + when);
        for (Map.Entry<Integer, Integer> e : metricsPorts.entrySet()) {
            if (e.getKey() != coordinator) {
                assertTrue(groupLag(e.getValue()).isEmpty(), "broker " + e.getKey() + " serves no lag of the group");
            }
        }
    }

    /** The group's lag series on one broker: partition to lag. */
    private static Map<Integer, Long> groupLag(int metricsPort) throws Exception {
        var response = Http.get(metricsPort, "/metrics");
        assertEquals(200, response.statusCode());
        Map<Integer, Long> out = new TreeMap<>();
        Matcher m = LAG.matcher(response.body());
        while (m.find()) {
            if (m.group(1).equals(GROUP) && m.group(3).equals(TOPIC)) {
                out.put(Integer.parseInt(m.group(2)), (long) Double.parseDouble(m.group(4)));
            }
        }
        return out;
    }
}
