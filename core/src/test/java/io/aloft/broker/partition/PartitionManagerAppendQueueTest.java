package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-partition append queues (which keep appends in arrival order while a log opens, and
 * remember refusals) exist only while needed: a partition whose appends are all submitted and
 * which remembers no refused batch keeps no entry, so a broker that served many partitions over
 * time does not keep one per partition forever. A queue that remembers a refusal stays until it
 * is no longer needed.
 */
class PartitionManagerAppendQueueTest {
    private static final int SELF = 1;

    @TempDir
    Path dir;

    @Test
    void appendsDone_noQueueLeftForTheirPartitions() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            MetadataCache cache = new MetadataCache();
            List<TopicPartition> tps = new ArrayList<>();
            List<PartitionInfo> parts = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                parts.add(new PartitionInfo(p, SELF, 1, List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                        f.store.createStream().get(10, TimeUnit.SECONDS))));
                tps.add(new TopicPartition("busy", p));
            }
            cache.putTopic(new TopicInfo(UUID.randomUUID(), "busy", Map.of(), parts));
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            try {
                // The first appends queue behind the opening logs, the later ones reach open logs at once.
                List<CompletableFuture<AppendResult>> appends = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    for (TopicPartition tp : tps) {
                        appends.add(partitions.append(tp, records("v" + i)));
                    }
                }
                for (int i = 0; i < appends.size(); i++) {
                    assertEquals(i / tps.size(), LogFixture.get(appends.get(i)).baseOffset());
                }
                assertEquals(0, partitions.appendQueueCount(), "appends are done: no partition needs its queue");

                for (TopicPartition tp : tps) {
                    LogFixture.get(partitions.append(tp, records("more")));
                }
                assertEquals(0, partitions.appendQueueCount());
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void refusedIdempotentBatch_queueKeptWhileRemembered_droppedOnceItsRetryIsAppended() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            TopicPartition tp = new TopicPartition("new-topic", 0);
            List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                    f.store.createStream().get(10, TimeUnit.SECONDS));
            MetadataCache cache = new MetadataCache(); // the topic is not known here yet
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            try {
                LogFixture.assertFails(Errors.UNKNOWN_TOPIC_OR_PARTITION, partitions.append(tp, idempotent(9, 0)));
                assertEquals(1, partitions.appendQueueCount(), "the refused batch is remembered");
                partitions.forgetExpiredRefusals();
                assertEquals(1, partitions.appendQueueCount(), "not expired yet");

                cache.putTopic(new TopicInfo(UUID.randomUUID(), tp.topic(), Map.of(),
                        List.of(new PartitionInfo(0, SELF, 1, streams))));
                LogFixture.assertFails(Errors.NOT_LEADER_OR_FOLLOWER, partitions.append(tp, idempotent(9, 1)));
                assertEquals(0, LogFixture.get(partitions.append(tp, idempotent(9, 0))).baseOffset());
                assertEquals(0, partitions.appendQueueCount(), "the retry is appended: nothing left to remember");
                assertEquals(1, LogFixture.get(partitions.append(tp, idempotent(9, 1))).baseOffset());
                assertEquals(0, partitions.appendQueueCount());
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static MemoryRecords idempotent(long pid, int sequence) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, sequence,
                LogFixture.rec(LogFixture.T0, "p" + pid + "-" + sequence));
    }

    private static MemoryRecords records(String value) {
        return MemoryRecords.withRecords(Compression.NONE, LogFixture.rec(LogFixture.T0, value));
    }
}
