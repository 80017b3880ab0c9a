package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.compaction.CompactionConfig;
import org.junit.jupiter.api.Test;

class StreamStoreConfigTest {

    private static void assertRejected(String key, Runnable build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
        assertTrue(e.getMessage().startsWith(key), e.getMessage());
    }

    @Test
    void build_badValues_nameTheKey() {
        assertRejected(StreamStoreConfig.NODE_ID_CONFIG, () -> StreamStoreConfig.builder(-1).build());
        assertRejected(StreamStoreConfig.LOG_CACHE_SIZE_CONFIG, () -> StreamStoreConfig.builder(1)
                .uploadThresholdBytes(64 << 20).logCacheSizeBytes(32 << 20).build());
        assertRejected(StreamStoreConfig.OBJECT_BLOCK_SIZE_CONFIG,
                () -> StreamStoreConfig.builder(1).objectBlockSizeBytes(100).build());
        assertRejected(StreamStoreConfig.APPEND_TIMEOUT_CONFIG,
                () -> StreamStoreConfig.builder(1).appendTimeoutMs(-1).build());
        assertRejected(CompactionConfig.INTERVAL_CONFIG,
                () -> StreamStoreConfig.builder(1).compactionIntervalMs(0).build());
        assertRejected(CompactionConfig.DELETE_DELAY_CONFIG,
                () -> StreamStoreConfig.builder(1).objectDeleteDelayMs(-5).build());
    }

    @Test
    void compaction_carriesTheStoreSettings() {
        StreamStoreConfig config = StreamStoreConfig.builder(7).compactionIntervalMs(5_000)
                .compactionSmallObjectBytes(1 << 20).compactionMaxMergeBytes(64 << 20).objectDeleteDelayMs(1_000)
                .compactionSplitThresholdBytes(2 << 20).splitThresholdBytes(64 << 20).build();
        CompactionConfig c = config.compaction();
        assertEquals(7, c.nodeId());
        assertEquals(5_000, c.intervalMs());
        assertEquals(1 << 20, c.smallObjectBytes());
        assertEquals(64 << 20, c.maxMergeBytes());
        assertEquals(1_000, c.deleteDelayMs());
        assertEquals(2 << 20, c.splitThresholdBytes(), "compaction has its own split threshold");
        assertEquals(64 << 20, config.splitThresholdBytes());
    }

    @Test
    void defaults_sealBigObjects_withinTheLogCacheAndTheWal() {
        StreamStoreConfig d = StreamStoreConfig.builder(1).build();
        // At least 128 MiB per PUT (the 8 PUTs per GiB) and no upload-time split of a
        // stream holding half a seal; the log cache holds the active seal and two uploading.
        assertTrue(d.uploadThresholdBytes() >= 128L << 20, "threshold " + d.uploadThresholdBytes());
        assertTrue(d.splitThresholdBytes() > d.uploadThresholdBytes() / 2, "split " + d.splitThresholdBytes());
        assertTrue(d.logCacheSizeBytes() >= 3 * d.uploadThresholdBytes(), "log cache " + d.logCacheSizeBytes());
        assertTrue(d.logCacheSizeBytes() < io.aloft.wal.WalConfig.CAPACITY_DEFAULT, "must stay below the WAL");
        assertEquals(CompactionConfig.SPLIT_THRESHOLD_DEFAULT, d.compaction().splitThresholdBytes());
    }
}
