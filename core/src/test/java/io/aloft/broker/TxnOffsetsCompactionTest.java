package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code __consumer_offsets} holding transactional offsets and their markers is compacted by the
 * background cleaner, and a restart replays what is left to the same offsets: committed
 * transactions' last offsets, an aborted transaction's offset gone (the regular commit before it
 * stays), and a regular commit written after a transaction's offset winning when the transaction
 * commits (Kafka's rule, which compaction must not turn around).
 */
class TxnOffsetsCompactionTest {
    private static final String OFFSETS = "__consumer_offsets";
    private static final TopicPartition DATA = new TopicPartition("data", 0);
    private static final int TRANSACTIONS = 30;

    @TempDir
    Path dir;

    @Test
    void compactedOffsetsTopic_withTransactionalOffsets_replaysToTheSameOffsets() throws Exception {
        Map<String, String> props = Map.of("offsets.topic.num.partitions", "1", "s3.wal.upload.interval.ms", "100",
                "log.cleaner.backoff.ms", "100", "aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "1");
        TestBroker broker = new TestBroker(dir, props);
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("data", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer = producer(broker)) {
                producer.initTransactions();
                // Many committed transactions over one key: all but the last are superseded.
                for (int i = 1; i <= TRANSACTIONS; i++) {
                    producer.beginTransaction();
                    producer.sendOffsetsToTransaction(Map.of(DATA, new OffsetAndMetadata(i)),
                            new ConsumerGroupMetadata("committed"));
                    producer.commitTransaction();
                }
                // A regular commit, then an aborted transaction's offset for the same key.
                admin.alterConsumerGroupOffsets("aborted", Map.of(DATA, new OffsetAndMetadata(100)))
                        .all().get(30, TimeUnit.SECONDS);
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(DATA, new OffsetAndMetadata(50)),
                        new ConsumerGroupMetadata("aborted"));
                producer.abortTransaction();
                // A transaction's offset, then a regular commit of the same key before the transaction commits.
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(DATA, new OffsetAndMetadata(7)),
                        new ConsumerGroupMetadata("overwritten"));
                admin.alterConsumerGroupOffsets("overwritten", Map.of(DATA, new OffsetAndMetadata(9)))
                        .all().get(30, TimeUnit.SECONDS);
                producer.commitTransaction();
            }
            assertOffsets(admin);
            ConfigResource offsets = new ConfigResource(ConfigResource.Type.TOPIC, OFFSETS);
            admin.incrementalAlterConfigs(Map.of(offsets, List.of(
                    new AlterConfigOp(new ConfigEntry("segment.ms", "100"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("min.cleanable.dirty.ratio", "0.01"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("delete.retention.ms", "0"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (broker.broker().logCleaner().stats().cleanings() == 0) {
                assertTrue(System.nanoTime() < deadline, "never cleaned: " + broker.broker().logCleaner().stats());
                // A later commit of another group keeps the log dirty and rolls the segment.
                admin.alterConsumerGroupOffsets("filler", Map.of(DATA, new OffsetAndMetadata(1)))
                        .all().get(30, TimeUnit.SECONDS);
                Thread.sleep(100);
            }
            assertOffsets(admin);
        } finally {
            broker.close();
        }
        TestBroker restarted = broker.restart();
        try (Admin admin = Admin.create(restarted.clientProps())) {
            assertOffsets(admin);
        } finally {
            restarted.close();
        }
    }

    private static void assertOffsets(Admin admin) throws Exception {
        assertEquals(TRANSACTIONS, offset(admin, "committed"));
        assertEquals(100, offset(admin, "aborted"));
        assertEquals(9, offset(admin, "overwritten"));
    }

    private static long offset(Admin admin, String group) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS).get(DATA);
                return o == null ? -1 : o.offset();
            } catch (java.util.concurrent.ExecutionException e) {
                // The group's partition still loading after the restart (the Admin client gives up on some).
                assertTrue(System.nanoTime() < deadline, e.toString());
                Thread.sleep(100);
            }
        }
    }

    private static KafkaProducer<String, String> producer(TestBroker broker) {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "compaction-tx");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(p);
    }
}
