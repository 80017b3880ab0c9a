package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A classic consumer group of real KafkaConsumers through join, rebalance and a member leaving:
 * with commits after processing and on revocation, every record is consumed exactly once.
 */
class ConsumerGroupTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    private static final String GROUP = "order-processors";
    /** Generous: a rebalance waits for every member's next poll, and the machine is shared. */
    private static final long WAIT_MS = 60_000;

    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("group.initial.rebalance.delay.ms", "0"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    static final class Member implements AutoCloseable {
        final String name;
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean stopping;

        Member(String name, GroupProgress progress) {
            this.name = name;
            this.thread = new Thread(() -> run(progress), "member-" + name);
            thread.start();
        }

        private void run(GroupProgress progress) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps())) {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        progress.owns(name, Set.of());
                        if (!stopping) { // when leaving, the loop below has just committed
                            consumer.commitSync();
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        progress.owns(name, partitions);
                    }
                });
                while (!stopping) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        progress.consumed(name, r);
                    }
                    try {
                        consumer.commitSync();
                    } catch (RebalanceInProgressException | CommitFailedException e) {
                        // The revocation callback of the next poll commits these positions instead.
                    }
                }
                consumer.commitSync();
                progress.owns(name, Set.of());
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /** Leaves the group: commits, then closes (which sends LeaveGroup). */
        @Override
        public void close() throws InterruptedException {
            stopping = true;
            thread.join(WAIT_MS);
            assertFalse(thread.isAlive(), name + " did not stop");
            if (failure.get() != null) {
                throw new AssertionError(name + " failed", failure.get());
            }
        }
    }

    static Properties consumerProps() {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Small polls, so a rebalance is likely to land while records are still unprocessed.
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        return p;
    }

    private static List<String> produce(KafkaProducer<String, String> producer, int from, int count)
            throws Exception {
        List<String> values = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            String v = "order-" + i;
            producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, v));
            values.add(v);
        }
        producer.flush();
        return values;
    }

    @Test
    void consumerGroup_membersJoinAndOneLeaves_everyRecordConsumedOnce() throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // The group starts at offset 0 by a committed offset rather than auto.offset.reset,
            // which needs ListOffsets (not served by this branch's broker).
            Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                start.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(0));
            }
            admin.alterConsumerGroupOffsets(GROUP, start).all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = broker.clientProps();
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        GroupProgress progress = new GroupProgress(PARTITIONS);
        List<String> produced = new ArrayList<>();
        int batch = 1000;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
                Member a = new Member("a", progress)) {
            produced.addAll(produce(producer, 0, batch));
            progress.await("a to own every partition", () -> progress.assignedExactlyTo(Set.of("a")));

            try (Member b = new Member("b", progress); Member c = new Member("c", progress)) {
                progress.await("a, b and c to share the partitions",
                        () -> progress.assignedExactlyTo(Set.of("a", "b", "c")));
                produced.addAll(produce(producer, batch, batch));
                progress.await("the first two batches", () -> progress.distinct() >= 2 * batch);

                b.close(); // leaves mid-way, with a third of the records still to come
                progress.await("a and c to take over b's partitions",
                        () -> progress.assignedExactlyTo(Set.of("a", "c")));
                produced.addAll(produce(producer, 2 * batch, batch));
                progress.await("every record", () -> progress.distinct() >= 3 * batch);
            }
        }

        synchronized (progress) {
            assertEquals(0, progress.duplicatePositions, "records consumed twice");
            assertEquals(produced.size(), progress.values.size());
            assertEquals(new HashSet<>(produced), new HashSet<>(progress.values));
            // Each member consumed its share of the batch produced while all three were assigned.
            for (String m : List.of("a", "b", "c")) {
                assertTrue(progress.consumedBy.getOrDefault(m, 0) > 0, m + " consumed nothing");
            }
        }
        // Nothing would be read again by the next member: the group's offsets are at the log end.
        try (Admin admin = Admin.create(broker.clientProps())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            long total = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            assertEquals(PARTITIONS, committed.size());
            assertEquals(3L * batch, total);
        }
    }
}
