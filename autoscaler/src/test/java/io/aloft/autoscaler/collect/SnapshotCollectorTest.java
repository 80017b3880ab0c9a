package io.aloft.autoscaler.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.TestClusters;
import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SnapshotCollector against a real 2-broker Aloft cluster (each broker with its own
 * {@code metrics.listener} and {@code broker.rack}): a producer writes a known number of bytes to a
 * heavy and a light topic, partition by partition, and the snapshot's rates times its interval must
 * give those bytes back per broker and per partition.
 */
class SnapshotCollectorTest {
    private static final int VALUE = 1000;
    private static TestClusters.Started started;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        started = TestClusters.start(2, Map.of());
        admin = TestClusters.admin(started.cluster().bootstrap());
        admin.createTopics(List.of(new NewTopic("heavy", 4, (short) 1), new NewTopic("light", 2, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        awaitLeaders(List.of("heavy", "light"));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (started != null) {
            started.close();
        }
    }

    @Test
    void locator_readsEachBrokersMetricsListener() throws Exception {
        Map<Integer, URI> urls = MetricsLocator.fromBrokerConfigs(admin, "http://{host}:1")
                .locate(admin.describeCluster().nodes().get());
        assertEquals(Map.of(1, URI.create("http://127.0.0.1:" + started.metricsPorts().get(1)),
                2, URI.create("http://127.0.0.1:" + started.metricsPorts().get(2))), urls);
        assertEquals(URI.create("http://127.0.0.1:9464"), MetricsLocator.fromTemplate(MetricsLocator.DEFAULT_TEMPLATE)
                .locate(admin.describeCluster().nodes().get()).get(2));
    }

    @Test
    void sample_producedBytes_matchPerBrokerAndPartitionRates() throws Exception {
        try (SnapshotCollector collector = new SnapshotCollector(admin,
                MetricsLocator.fromBrokerConfigs(admin, MetricsLocator.DEFAULT_TEMPLATE), Duration.ofSeconds(1))) {
            ClusterSnapshot before = collector.sample();
            assertEquals(List.of(1, 2), before.brokers().stream().map(BrokerLoad::id).toList());
            assertEquals(Optional.of("rack-1"), before.broker(1).orElseThrow().rack());
            assertEquals(Optional.of("rack-2"), before.broker(2).orElseThrow().rack());
            assertTrue(before.brokers().stream().allMatch(BrokerLoad::ready), before.brokers().toString());

            // Partition p of "heavy" gets (p + 1) * 150 records, each "light" partition 30.
            Map<TopicPartition, Long> sent = produce();
            ClusterSnapshot after = collector.sample();
            double seconds = (after.timeMs() - before.timeMs()) / 1000.0;

            Map<TopicPartition, Integer> leaders = leaders(List.of("heavy", "light"));
            Map<Integer, Long> perBroker = new TreeMap<>();
            sent.forEach((tp, bytes) -> perBroker.merge(leaders.get(tp), bytes, Long::sum));
            for (BrokerLoad b : after.brokers()) {
                long expected = perBroker.getOrDefault(b.id(), 0L);
                double measured = b.bytesInPerSec() * seconds;
                // Batch headers and record framing add a few per cent over the values.
                assertTrue(measured >= expected * 0.98 && measured <= expected * 1.15 + 2000,
                        "broker " + b.id() + ": " + measured + " bytes measured, " + expected + " value bytes sent");
                assertTrue(b.ready());
                assertTrue(b.walFillRatio() >= 0 && b.walFillRatio() <= 1, b.toString());
                assertTrue(b.produceP99Seconds() > 0, "produce p99 of broker " + b.id() + ": " + b);
            }
            double heavy = 0;
            double light = 0;
            for (TopicPartition tp : sent.keySet()) {
                PartitionLoad p = after.partitions().stream().filter(l -> l.topic().equals(tp.topic())
                        && l.partition() == tp.partition()).findFirst().orElseThrow();
                assertEquals(leaders.get(tp), p.broker(), p.name());
                double measured = p.bytesInPerSec() * seconds;
                assertTrue(Math.abs(measured - sent.get(tp)) <= sent.get(tp) * 0.15 + 1000,
                        p.name() + ": " + measured + " bytes estimated, " + sent.get(tp) + " sent");
                if (tp.topic().equals("heavy")) {
                    heavy += p.bytesInPerSec();
                } else {
                    light += p.bytesInPerSec();
                }
            }
            assertTrue(heavy > 5 * light, heavy + " vs " + light);
            // Internal topics are listed too once they exist; every listed partition is on a broker.
            assertTrue(after.partitions().stream().allMatch(p -> p.broker() == 1 || p.broker() == 2));

            long heavyBytes = sent.entrySet().stream().filter(e -> e.getKey().topic().equals("heavy"))
                    .mapToLong(Map.Entry::getValue).sum();
            consumeAll("heavy", sent.entrySet().stream().filter(e -> e.getKey().topic().equals("heavy"))
                    .mapToLong(e -> e.getValue() / VALUE).sum());
            ClusterSnapshot read = collector.sample();
            double out = read.brokers().stream().mapToDouble(BrokerLoad::bytesOutPerSec).sum()
                    * (read.timeMs() - after.timeMs()) / 1000.0;
            assertTrue(out >= heavyBytes * 0.98 && out <= heavyBytes * 1.5, out + " bytes out, " + heavyBytes + " read");
            double heavyOut = read.partitions().stream().filter(p -> p.topic().equals("heavy"))
                    .mapToDouble(PartitionLoad::bytesOutPerSec).sum() * (read.timeMs() - after.timeMs()) / 1000.0;
            assertTrue(Math.abs(heavyOut - out) <= out * 0.05, heavyOut + " of " + out);
        }
    }

    @Test
    void sample_unreachableMetrics_nanRatesNotReadyAndNoThrow() throws Exception {
        try (SnapshotCollector collector = new SnapshotCollector(admin, MetricsLocator.fromTemplate("http://{host}:1"),
                Duration.ofMillis(200))) {
            ClusterSnapshot s = collector.sample();
            assertEquals(2, s.brokers().size());
            for (BrokerLoad b : s.brokers()) {
                assertFalse(b.ready(), b.toString());
                assertTrue(Double.isNaN(b.bytesInPerSec()) && Double.isNaN(b.bytesOutPerSec())
                        && Double.isNaN(b.cpuUsage()), b.toString());
            }
            // The partition map comes from the Admin API and does not depend on the scrape.
            assertTrue(s.partitions().stream().anyMatch(p -> p.topic().equals("heavy")));
            assertTrue(s.partitions().stream().filter(p -> p.topic().equals("heavy"))
                    .allMatch(p -> Double.isNaN(p.bytesInPerSec())));
        }
    }

    private static Map<TopicPartition, Long> produce() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, started.cluster().bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        Map<TopicPartition, Long> sent = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        byte[] value = new byte[VALUE];
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int part = 0; part < 4; part++) {
                for (int i = 0; i < (part + 1) * 150; i++) {
                    acks.add(producer.send(new ProducerRecord<>("heavy", part, null, value)));
                }
                sent.put(new TopicPartition("heavy", part), (part + 1) * 150L * VALUE);
            }
            for (int part = 0; part < 2; part++) {
                for (int i = 0; i < 30; i++) {
                    acks.add(producer.send(new ProducerRecord<>("light", part, null, value)));
                }
                sent.put(new TopicPartition("light", part), 30L * VALUE);
            }
            for (Future<RecordMetadata> f : acks) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        return sent;
    }

    private static void consumeAll(String topic, long records) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, started.cluster().bootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                parts.add(new TopicPartition(topic, i));
            }
            consumer.assign(parts);
            long read = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (read < records && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertEquals(records, read);
        }
    }

    static Map<TopicPartition, Integer> leaders(List<String> topics) throws Exception {
        Map<TopicPartition, Integer> out = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get(20, TimeUnit.SECONDS).values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                out.put(new TopicPartition(d.name(), p.partition()), p.leader() == null ? -1 : p.leader().id());
            }
        }
        return out;
    }

    private static void awaitLeaders(List<String> topics) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (leaders(topics).containsValue(-1)) {
            assertTrue(System.nanoTime() < deadline, "no leaders for " + topics);
            Thread.sleep(100);
        }
    }
}
