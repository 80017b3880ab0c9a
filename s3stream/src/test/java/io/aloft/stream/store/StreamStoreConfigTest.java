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
        assertRejected(CatchUpReadConfig.IN_FLIGHT_CONFIG,
                () -> StreamStoreConfig.builder(1).catchUpReadInFlightBytes(0).build());
        assertRejected(CatchUpReadConfig.RATE_CONFIG,
                () -> StreamStoreConfig.builder(1).catchUpReadBytesPerSecond(-1).build());
    }

    @Test
    void fromProperties_readsEveryKeyOfTheDefinition() {
        java.util.Map<String, String> props = new java.util.HashMap<>();
        props.put("s3.wal.upload.threshold.bytes", "1048576");
        props.put("s3.wal.upload.interval.ms", "500");
        props.put("s3.wal.upload.pacing.factor", "-1");
        props.put("s3.stream.object.split.threshold.bytes", "2097152");
        props.put("s3.log.cache.size.bytes", " 8388608 ");
        props.put("s3.append.timeout.ms", "0");
        props.put("s3.block.cache.size.bytes", "4194304");
        props.put("s3.object.block.size.bytes", "65536");
        props.put("s3.object.prepare.ttl.ms", "1000");
        props.put("s3.compaction.interval.ms", "2000");
        props.put("s3.compaction.small.object.bytes", "1024");
        props.put("s3.compaction.max.merge.bytes", "4096");
        props.put("s3.compaction.split.threshold.bytes", "3000");
        props.put("s3.object.delete.delay.ms", "7");
        props.put("s3.catchup.read.threads", "3");
        props.put("s3.catchup.read.inflight.bytes", "5000");
        props.put("s3.catchup.read.rate.bytes.per.second", "6000");
        props.put("wal.capacity.bytes", "not ours: ignored");
        assertEquals(props.size() - 1, StreamStoreConfig.DEFINITION.keys().size(), "every key is exercised");
        StreamStoreConfig c = StreamStoreConfig.fromProperties(2, props);
        assertEquals(1 << 20, c.uploadThresholdBytes());
        assertEquals(500, c.uploadIntervalMs());
        assertEquals(-1.0, c.uploadPacingFactor());
        assertEquals(2 << 20, c.splitThresholdBytes());
        assertEquals(8 << 20, c.logCacheSizeBytes());
        assertEquals(0, c.appendTimeoutMs());
        assertEquals(4 << 20, c.blockCacheSizeBytes());
        assertEquals(65536, c.objectBlockSizeBytes());
        assertEquals(1000, c.prepareTtlMs());
        assertEquals(3, c.catchUpReadThreads());
        assertEquals(5000, c.catchUpReadInFlightBytes());
        assertEquals(6000, c.catchUpReadBytesPerSecond());
        assertTrue(StreamStoreConfig.builder(1).build().catchUpReadThreads() >= 1, "0 resolves to half the cores");
        CompactionConfig compaction = c.compaction();
        assertEquals(2000, compaction.intervalMs());
        assertEquals(1024, compaction.smallObjectBytes());
        assertEquals(4096, compaction.maxMergeBytes());
        assertEquals(3000, compaction.splitThresholdBytes());
        assertEquals(7, compaction.deleteDelayMs());
        assertEquals(1000, compaction.prepareTtlMs(), "uploads and compaction share the prepare TTL");
        assertEquals(65536, compaction.objectBlockSizeBytes(), "and the block size");

        assertRejected(StreamStoreConfig.UPLOAD_INTERVAL_CONFIG,
                () -> StreamStoreConfig.fromProperties(2, java.util.Map.of("s3.wal.upload.interval.ms", "10s")));
        assertRejected(CompactionConfig.SMALL_OBJECT_CONFIG, () -> StreamStoreConfig.fromProperties(2,
                java.util.Map.of("s3.compaction.small.object.bytes", "9", "s3.compaction.max.merge.bytes", "8")));
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
        assertTrue(d.logCacheSizeBytes() < io.aloft.wal.WalConfig.CAPACITY.defaultValue(), "must stay below the WAL");
        assertEquals(CompactionConfig.SPLIT_THRESHOLD.defaultValue(), d.compaction().splitThresholdBytes());
    }
}
