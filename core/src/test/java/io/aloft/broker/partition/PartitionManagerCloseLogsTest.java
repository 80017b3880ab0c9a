package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing every log before a broker leaves the cluster (graceful drain) waits for the logs
 * released just before too: the new owners stop waiting for this broker once it has left, so
 * leaving while a released log still uploads what only this broker's WAL holds would lose it.
 */
class PartitionManagerCloseLogsTest {
    private static final int SELF = 1;
    private static final TopicPartition TP = new TopicPartition("closing", 0);
    private static final UUID ID = new UUID(5, 5);

    @TempDir
    Path dir;

    @Test
    void closeLogs_waitsForALogReleasedAndStillClosing() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                    f.store.createStream().get(10, TimeUnit.SECONDS));
            MetadataCache cache = new MetadataCache();
            cache.putTopic(new TopicInfo(ID, TP.topic(), Map.of(), List.of(new PartitionInfo(0, SELF, 0, streams))));
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            try {
                LogFixture.get(partitions.append(TP, MemoryRecords.withRecords(Compression.NONE,
                        LogFixture.rec(LogFixture.T0, "only-in-the-wal"))));
                // Its close must upload that record; object storage refuses it for now.
                f.objectStorageDown(true);
                cache.putTopic(new TopicInfo(ID, TP.topic(), Map.of(), List.of(new PartitionInfo(0, 2, 1,
                        streams)))); // moved away: released, closing
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!partitions.openLogs().isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "never released");
                    TimeUnit.MILLISECONDS.sleep(10);
                }
                CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(partitions::closeLogs);
                TimeUnit.MILLISECONDS.sleep(500); // room for a closeLogs that does not wait to return
                assertFalse(closed.isDone(), "closeLogs returned while a released log was still uploading");
                f.objectStorageDown(false);
                assertEquals(true, closed.get(60, TimeUnit.SECONDS));
            } finally {
                f.objectStorageDown(false);
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }
}
