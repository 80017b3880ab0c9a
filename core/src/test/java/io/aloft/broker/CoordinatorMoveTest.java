package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A group coordinator moves with its {@code __consumer_offsets} partition (issue 13): Kafka's own
 * {@code kafka-reassign-partitions.sh} moves the partition of a live group, with its member idle
 * between polls; the new coordinator has loaded the committed offsets (read back through Admin
 * before the member commits again), the member goes on from its position, and a new member after
 * it starts from what was committed. For both group protocols: classic and KIP-848's consumer.
 */
class CoordinatorMoveTest {
    private static final int BROKERS = 3;
    private static final int OFFSETS_PARTITIONS = 3;

    @org.junit.jupiter.api.io.TempDir
    static Path dir;
    private static TestCluster cluster;
    private static ReassignTool tool;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(dir.resolve("cluster"), BROKERS, 0, Map.of("offsets.topic.num.partitions",
                Integer.toString(OFFSETS_PARTITIONS)));
        tool = new ReassignTool(cluster, BROKERS, dir.resolve("tool"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void coordinatorMovedByTheTool_offsetsIntact_memberContinues_newMemberResumes(String protocol) throws Exception {
        String topic = "coordinated-" + protocol;
        String group = "moving-" + protocol;
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        produce(topic, 0, 100);

        List<Integer> consumed = new ArrayList<>();
        try (KafkaConsumer<String, String> member = consumer(group, protocol)) {
            member.subscribe(List.of(topic));
            pollUntil(member, consumed, 50);
            member.commitSync(Map.of(tp, new OffsetAndMetadata(50)), Duration.ofSeconds(60));

            int offsetsPartition = Math.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            int from;
            try (Admin admin = cluster.admin(2)) {
                from = admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS).get(group)
                        .coordinator().id();
            }
            assertEquals(from, cluster.leader("__consumer_offsets", offsetsPartition),
                    "the coordinator is the broker serving the group's __consumer_offsets partition");
            int to = from % BROKERS + 1;
            tool.executeAndVerify(ReassignTool.plan("__consumer_offsets", offsetsPartition, to),
                    group + "'s coordinator " + from + " -> " + to);
            cluster.awaitLeader("__consumer_offsets", offsetsPartition, to, "coordinator move");

            try (Admin admin = cluster.admin(3)) {
                // Admin finds the coordinator afresh: the new one answers with the loaded offsets.
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
                assertEquals(50L, committed.get(tp).offset(), "committed offset on the new coordinator");
                assertEquals(to, admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS)
                        .get(group).coordinator().id(), "the group's coordinator after the move");
            }
            // The member goes on from its position (rejoining if the new coordinator asks it to).
            pollUntil(member, consumed, 100);
            member.commitSync(Duration.ofSeconds(60));
        }
        assertEquals(range(0, 100), consumed, "the member consumed every record once, across the move");

        // A new member starts from the committed offset: only what came after.
        produce(topic, 100, 10);
        List<Integer> resumed = new ArrayList<>();
        try (KafkaConsumer<String, String> next = consumer(group, protocol)) {
            next.subscribe(List.of(topic));
            pollUntil(next, resumed, 10);
            try (Admin admin = cluster.admin(1)) {
                assertEquals(110L, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(60, TimeUnit.SECONDS)
                        .get(tp).offset());
            }
        }
        assertEquals(range(100, 110), resumed, "a new member resumes at the committed offset");
    }

    private static void produce(String topic, int from, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(1));
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i))).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(String group, String protocol) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(2));
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls until {@code into} holds {@code count} values (max.poll.records=10 keeps it from overshooting a multiple of 10). */
    private static void pollUntil(KafkaConsumer<String, String> consumer, List<Integer> into, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (into.size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("consumed " + into.size() + " of " + count + " within 60 s");
            }
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                into.add(Integer.parseInt(r.value()));
            }
        }
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }
}
