package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code __consumer_offsets} is compacted: committed offsets overwritten many times, and every
 * offset of deleted groups, leave storage (the background cleaner threads do it), and what is
 * left still restores the remaining groups after a restart.
 */
class OffsetsTopicCompactionTest {
    private static final String OFFSETS = "__consumer_offsets";
    private static final int GROUPS = 30;
    private static final int DELETED = 25;
    private static final int COMMITS = 40;

    @TempDir
    Path dir;

    private static long offsetsTopicBytes(Admin admin, int brokerId) throws Exception {
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(brokerId)).allDescriptions()
                .get(30, TimeUnit.SECONDS).get(brokerId);
        long bytes = 0;
        for (LogDirDescription d : dirs.values()) {
            for (Map.Entry<TopicPartition, ReplicaInfo> e : d.replicaInfos().entrySet()) {
                if (e.getKey().topic().equals(OFFSETS)) {
                    bytes += e.getValue().size();
                }
            }
        }
        return bytes;
    }

    @Test
    void offsetsOfDeletedGroupsAndOverwrittenCommits_leaveStorage() throws Exception {
        Map<String, String> props = Map.of("offsets.topic.num.partitions", "1", "s3.wal.upload.interval.ms", "100",
                "log.cleaner.backoff.ms", "100");
        TestBroker broker = new TestBroker(dir.resolve("broker"), props);
        TopicPartition data = new TopicPartition("data", 0);
        long before;
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("data", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);

            // All of it is the active segment (100 MiB, 7 days) while it is written: nothing is cleaned yet.
            for (int c = 1; c <= COMMITS; c++) {
                for (int g = 0; g < GROUPS; g++) {
                    admin.alterConsumerGroupOffsets("group-" + g, Map.of(data, new OffsetAndMetadata(c * 10L + g)))
                            .all().get(30, TimeUnit.SECONDS);
                }
            }
            // Described once a group has used it: like Kafka, a cluster may create the topic only then.
            ConfigResource offsets = new ConfigResource(ConfigResource.Type.TOPIC, OFFSETS);
            Map<String, ConfigEntry> configs = new HashMap<>();
            admin.describeConfigs(List.of(offsets)).all().get(30, TimeUnit.SECONDS).get(offsets).entries()
                    .forEach(e -> configs.put(e.name(), e));
            assertEquals("compact", configs.get("cleanup.policy").value());
            assertEquals("104857600", configs.get("segment.bytes").value());
            List<String> doomed = new java.util.ArrayList<>();
            for (int g = 0; g < DELETED; g++) {
                doomed.add("group-" + g);
            }
            admin.deleteConsumerGroups(doomed).all().get(30, TimeUnit.SECONDS);
            before = offsetsTopicBytes(admin, broker.broker().nodeId());
            assertEquals(0, broker.broker().logCleaner().stats().cleanings());

            // Small segments and an immediate tombstone horizon, so a test-sized topic is cleaned at once.
            admin.incrementalAlterConfigs(Map.of(offsets, List.of(
                    new AlterConfigOp(new ConfigEntry("segment.ms", "100"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("min.cleanable.dirty.ratio", "0.01"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("delete.retention.ms", "0"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long now = offsetsTopicBytes(admin, broker.broker().nodeId());
            while (now > before / 20) {
                assertTrue(System.nanoTime() < deadline, before + " bytes before, still " + now + "; "
                        + broker.broker().logCleaner().stats());
                // A later commit keeps the log dirty, so the cleaner comes back for the tombstones too.
                admin.alterConsumerGroupOffsets("group-" + (GROUPS - 1), Map.of(data, new OffsetAndMetadata(9999)))
                        .all().get(30, TimeUnit.SECONDS);
                Thread.sleep(100); // poll the log's size
                now = offsetsTopicBytes(admin, broker.broker().nodeId());
            }
            assertTrue(broker.broker().logCleaner().stats().cleanings() > 0);
        } finally {
            broker.close();
        }

        TestBroker restarted = broker.restart();
        try (Admin admin = Admin.create(restarted.clientProps())) {
            for (int g = 0; g < GROUPS; g++) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("group-" + g)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                if (g < DELETED) {
                    assertEquals(Map.of(), committed, "group-" + g + " was deleted");
                } else if (g == GROUPS - 1) {
                    assertEquals(9999, committed.get(data).offset());
                } else {
                    assertEquals(COMMITS * 10L + g, committed.get(data).offset(), "group-" + g);
                }
            }
            assertTrue(offsetsTopicBytes(admin, restarted.broker().nodeId()) < before / 20);
        } finally {
            restarted.close();
        }
    }
}
