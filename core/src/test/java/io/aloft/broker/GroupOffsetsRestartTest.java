package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed offsets live in {@code __consumer_offsets}, so they outlive the broker: a consumer of
 * the group started after a restart on the same data dir resumes where the group left off.
 */
class GroupOffsetsRestartTest {
    private static final String TOPIC = "payments";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 300;
    private static final String GROUP = "ledger";
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private static Properties consumerProps(TestBroker broker) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
        return p;
    }

    @Test
    void committedOffsets_brokerRestart_newConsumerResumesThere() throws Exception {
        Map<String, String> overrides = Map.of("group.initial.rebalance.delay.ms", "0");
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        Set<String> consumedBefore = new HashSet<>();
        TestBroker first = new TestBroker(dir, overrides);
        try {
            try (Admin admin = Admin.create(first.clientProps())) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all()
                        .get(30, TimeUnit.SECONDS);
                // Start at 0 by a committed offset: auto.offset.reset needs ListOffsets, not served here.
                Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    start.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(0));
                }
                admin.alterConsumerGroupOffsets(GROUP, start).all().get(30, TimeUnit.SECONDS);
            }
            Properties pp = first.clientProps();
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, "payment-" + i));
                }
                producer.flush();
            }
            // Consume part of the topic and commit what was processed, with metadata to check later.
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(first))) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (consumedBefore.size() < RECORDS / 2) {
                    assertTrue(System.nanoTime() < deadline, "consumed only " + consumedBefore.size());
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        consumedBefore.add(r.value());
                        committed.put(new TopicPartition(r.topic(), r.partition()),
                                new OffsetAndMetadata(r.offset() + 1, "after " + r.value()));
                    }
                }
                consumer.commitSync(committed);
            }
        } finally {
            first.close();
        }

        try (TestBroker second = first.restart()) {
            try (Admin admin = Admin.create(second.clientProps())) {
                Map<TopicPartition, OffsetAndMetadata> after = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetAndMetadata> expected = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    TopicPartition tp = new TopicPartition(TOPIC, p);
                    // A partition the first consumer read nothing from keeps the group's starting 0.
                    expected.put(tp, committed.getOrDefault(tp, new OffsetAndMetadata(0)));
                }
                assertEquals(offsetsAndMetadata(expected), offsetsAndMetadata(after));
            }
            Map<TopicPartition, Long> firstSeen = new HashMap<>();
            Set<String> consumedAfter = new HashSet<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(second))) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (consumedBefore.size() + consumedAfter.size() < RECORDS) {
                    assertTrue(System.nanoTime() < deadline, "consumed only " + consumedAfter.size() + " after");
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        firstSeen.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
                        assertTrue(consumedAfter.add(r.value()), r.value() + " read twice after the restart");
                    }
                }
            }
            for (Map.Entry<TopicPartition, Long> e : firstSeen.entrySet()) {
                long resumeAt = committed.containsKey(e.getKey()) ? committed.get(e.getKey()).offset() : 0;
                assertEquals(resumeAt, e.getValue(), "first offset read from " + e.getKey());
            }
            Set<String> overlap = new HashSet<>(consumedBefore);
            overlap.retainAll(consumedAfter);
            assertEquals(Set.of(), overlap, "records read again despite their committed offsets");
            assertEquals(RECORDS, consumedBefore.size() + consumedAfter.size());
        }
    }

    /** Offset and metadata per partition (OffsetAndMetadata's equals also compares the leader epoch). */
    private static Map<TopicPartition, String> offsetsAndMetadata(Map<TopicPartition, OffsetAndMetadata> m) {
        Map<TopicPartition, String> out = new HashMap<>();
        m.forEach((tp, o) -> out.put(tp, o.offset() + "/" + o.metadata()));
        return out;
    }
}
