package io.aloft.stream.store;

import io.aloft.stream.compaction.CompactionConfig;
import java.util.List;

/**
 * Settings of a {@link StreamStore}. Immutable; validated when built; a bad value fails with an
 * {@link IllegalArgumentException} whose message starts with the key.
 */
public final class StreamStoreConfig {
    public static final String NODE_ID_CONFIG = "node.id";
    public static final String NODE_ID_DOC = "Id of this node: owner of the streams it opens and writer of its objects.";

    public static final String UPLOAD_THRESHOLD_CONFIG = "s3.wal.upload.threshold.bytes";
    public static final String UPLOAD_THRESHOLD_DOC = "When the log cache holds this many bytes not yet sealed, "
            + "they are sealed and uploaded as one stream-set object. Each object costs a PUT, so this sets the PUTs "
            + "per GiB under load (160 MiB: about 6.4); the log cache must hold a few of these.";
    // 160 MiB: above the 128 MiB per PUT that 8 PUTs per GiB needs, with room for partial seals.
    public static final long UPLOAD_THRESHOLD_DEFAULT = 160L << 20;

    public static final String UPLOAD_INTERVAL_CONFIG = "s3.wal.upload.interval.ms";
    public static final String UPLOAD_INTERVAL_DOC = "Data older than this in the log cache is sealed and uploaded "
            + "even below the size threshold, bounding how much the WAL holds.";
    public static final long UPLOAD_INTERVAL_DEFAULT = 10_000;

    public static final String SPLIT_THRESHOLD_CONFIG = "s3.stream.object.split.threshold.bytes";
    public static final String SPLIT_THRESHOLD_DOC = "A stream with at least this many bytes in one upload gets a "
            + "stream object of its own instead of a share of the stream-set object. Each such object is one more "
            + "PUT, so the default only splits out a stream that fills most of a seal; compaction splits big "
            + "streams out of the small objects it merges (s3.compaction.split.threshold.bytes).";
    // Large on purpose: splitting a 50 % stream out of every seal doubles the PUTs per GiB. A
    // stream's data is contiguous inside a stream-set object, so catch-up reads do not suffer.
    public static final long SPLIT_THRESHOLD_DEFAULT = 128L << 20;

    public static final String LOG_CACHE_SIZE_CONFIG = "s3.log.cache.size.bytes";
    public static final String LOG_CACHE_SIZE_DOC = "Memory for the log cache (the tail of every stream). Uploaded "
            + "data is evicted, oldest first, beyond it; data not yet uploaded is never evicted, and once it alone "
            + "fills this budget appends wait (s3.append.timeout.ms). Must be below the WAL's capacity.";
    // Room for the active seal and two in upload (160 MiB each) with margin; below the WAL's 1 GiB default.
    public static final long LOG_CACHE_SIZE_DEFAULT = 512L << 20;

    public static final String APPEND_TIMEOUT_CONFIG = "s3.append.timeout.ms";
    public static final String APPEND_TIMEOUT_DOC = "When the log cache holds s3.log.cache.size.bytes not yet "
            + "uploaded (object storage slow or down), appends wait for uploads this long, then fail with "
            + "StreamStoreFullException. Acknowledged data is never dropped to make room.";
    public static final long APPEND_TIMEOUT_DEFAULT = 20_000;

    public static final String BLOCK_CACHE_SIZE_CONFIG = "s3.block.cache.size.bytes";
    public static final String BLOCK_CACHE_SIZE_DOC = "Memory for data blocks read from object storage (catch-up reads).";
    public static final long BLOCK_CACHE_SIZE_DEFAULT = 128L << 20;

    public static final String OBJECT_BLOCK_SIZE_CONFIG = "s3.object.block.size.bytes";
    public static final String OBJECT_BLOCK_SIZE_DOC = "Target size of a data block inside an object: the unit of a "
            + "ranged read.";
    public static final int OBJECT_BLOCK_SIZE_DEFAULT = 512 * 1024;

    public static final String PREPARE_TTL_CONFIG = "s3.object.prepare.ttl.ms";
    public static final String PREPARE_TTL_DOC = "An object id prepared for an upload that is not committed within "
            + "this time is marked for deletion (its writer failed).";
    public static final long PREPARE_TTL_DEFAULT = 60 * 60_000L;

    /** One documented key. */
    public record Key(String name, String defaultValue, String doc) {
    }

    public static final List<Key> KEYS = List.of(
            new Key(NODE_ID_CONFIG, "(required)", NODE_ID_DOC),
            new Key(UPLOAD_THRESHOLD_CONFIG, Long.toString(UPLOAD_THRESHOLD_DEFAULT), UPLOAD_THRESHOLD_DOC),
            new Key(UPLOAD_INTERVAL_CONFIG, Long.toString(UPLOAD_INTERVAL_DEFAULT), UPLOAD_INTERVAL_DOC),
            new Key(SPLIT_THRESHOLD_CONFIG, Long.toString(SPLIT_THRESHOLD_DEFAULT), SPLIT_THRESHOLD_DOC),
            new Key(LOG_CACHE_SIZE_CONFIG, Long.toString(LOG_CACHE_SIZE_DEFAULT), LOG_CACHE_SIZE_DOC),
            new Key(APPEND_TIMEOUT_CONFIG, Long.toString(APPEND_TIMEOUT_DEFAULT), APPEND_TIMEOUT_DOC),
            new Key(BLOCK_CACHE_SIZE_CONFIG, Long.toString(BLOCK_CACHE_SIZE_DEFAULT), BLOCK_CACHE_SIZE_DOC),
            new Key(OBJECT_BLOCK_SIZE_CONFIG, Integer.toString(OBJECT_BLOCK_SIZE_DEFAULT), OBJECT_BLOCK_SIZE_DOC),
            new Key(PREPARE_TTL_CONFIG, Long.toString(PREPARE_TTL_DEFAULT), PREPARE_TTL_DOC),
            new Key(CompactionConfig.INTERVAL_CONFIG, Long.toString(CompactionConfig.INTERVAL_DEFAULT),
                    CompactionConfig.INTERVAL_DOC),
            new Key(CompactionConfig.SMALL_OBJECT_CONFIG, Long.toString(CompactionConfig.SMALL_OBJECT_DEFAULT),
                    CompactionConfig.SMALL_OBJECT_DOC),
            new Key(CompactionConfig.MAX_MERGE_CONFIG, Long.toString(CompactionConfig.MAX_MERGE_DEFAULT),
                    CompactionConfig.MAX_MERGE_DOC),
            new Key(CompactionConfig.SPLIT_THRESHOLD_CONFIG, Long.toString(CompactionConfig.SPLIT_THRESHOLD_DEFAULT),
                    CompactionConfig.SPLIT_THRESHOLD_DOC),
            new Key(CompactionConfig.DELETE_DELAY_CONFIG, Long.toString(CompactionConfig.DELETE_DELAY_DEFAULT),
                    CompactionConfig.DELETE_DELAY_DOC));

    private final int nodeId;
    private final long uploadThresholdBytes;
    private final long uploadIntervalMs;
    private final long splitThresholdBytes;
    private final long logCacheSizeBytes;
    private final long appendTimeoutMs;
    private final long blockCacheSizeBytes;
    private final int objectBlockSizeBytes;
    private final long prepareTtlMs;
    private final long compactionIntervalMs;
    private final long compactionSmallObjectBytes;
    private final long compactionMaxMergeBytes;
    private final long compactionSplitThresholdBytes;
    private final long objectDeleteDelayMs;

    private StreamStoreConfig(Builder b) {
        require(b.nodeId >= 0, NODE_ID_CONFIG, b.nodeId + " is negative");
        require(b.uploadThresholdBytes > 0, UPLOAD_THRESHOLD_CONFIG, "must be positive");
        require(b.uploadIntervalMs > 0, UPLOAD_INTERVAL_CONFIG, "must be positive");
        require(b.splitThresholdBytes > 0, SPLIT_THRESHOLD_CONFIG, "must be positive");
        require(b.logCacheSizeBytes >= b.uploadThresholdBytes, LOG_CACHE_SIZE_CONFIG,
                b.logCacheSizeBytes + " is below " + UPLOAD_THRESHOLD_CONFIG + "=" + b.uploadThresholdBytes);
        require(b.appendTimeoutMs >= 0, APPEND_TIMEOUT_CONFIG, "must not be negative");
        require(b.blockCacheSizeBytes > 0, BLOCK_CACHE_SIZE_CONFIG, "must be positive");
        require(b.objectBlockSizeBytes >= 1024 && b.objectBlockSizeBytes <= (64 << 20), OBJECT_BLOCK_SIZE_CONFIG,
                b.objectBlockSizeBytes + " is outside [1024, 67108864]");
        require(b.prepareTtlMs > 0, PREPARE_TTL_CONFIG, "must be positive");
        this.nodeId = b.nodeId;
        this.uploadThresholdBytes = b.uploadThresholdBytes;
        this.uploadIntervalMs = b.uploadIntervalMs;
        this.splitThresholdBytes = b.splitThresholdBytes;
        this.logCacheSizeBytes = b.logCacheSizeBytes;
        this.appendTimeoutMs = b.appendTimeoutMs;
        this.blockCacheSizeBytes = b.blockCacheSizeBytes;
        this.objectBlockSizeBytes = b.objectBlockSizeBytes;
        this.prepareTtlMs = b.prepareTtlMs;
        this.compactionIntervalMs = b.compactionIntervalMs;
        this.compactionSmallObjectBytes = b.compactionSmallObjectBytes;
        this.compactionMaxMergeBytes = b.compactionMaxMergeBytes;
        this.compactionSplitThresholdBytes = b.compactionSplitThresholdBytes;
        this.objectDeleteDelayMs = b.objectDeleteDelayMs;
        compaction(); // validates the compaction settings now, naming the key at fault
    }

    /** The compaction settings derived from this config (keys documented in {@link CompactionConfig}). */
    public CompactionConfig compaction() {
        return CompactionConfig.builder(nodeId)
                .intervalMs(compactionIntervalMs)
                .smallObjectBytes(compactionSmallObjectBytes)
                .maxMergeBytes(compactionMaxMergeBytes)
                .deleteDelayMs(objectDeleteDelayMs)
                .splitThresholdBytes(compactionSplitThresholdBytes)
                .prepareTtlMs(prepareTtlMs)
                .objectBlockSizeBytes(objectBlockSizeBytes)
                .build();
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new IllegalArgumentException(key + ": " + message);
        }
    }

    /**
     * Reads the stream store's keys of {@link #KEYS} from properties (others are ignored; missing
     * ones take their defaults). A value that is not a number fails naming its key.
     */
    public static StreamStoreConfig fromProperties(int nodeId, java.util.Map<?, ?> props) {
        Builder b = builder(nodeId);
        java.util.Map<String, java.util.function.LongConsumer> setters = new java.util.LinkedHashMap<>();
        setters.put(UPLOAD_THRESHOLD_CONFIG, b::uploadThresholdBytes);
        setters.put(UPLOAD_INTERVAL_CONFIG, b::uploadIntervalMs);
        setters.put(SPLIT_THRESHOLD_CONFIG, b::splitThresholdBytes);
        setters.put(LOG_CACHE_SIZE_CONFIG, b::logCacheSizeBytes);
        setters.put(APPEND_TIMEOUT_CONFIG, b::appendTimeoutMs);
        setters.put(BLOCK_CACHE_SIZE_CONFIG, b::blockCacheSizeBytes);
        setters.put(OBJECT_BLOCK_SIZE_CONFIG, v -> b.objectBlockSizeBytes((int) Math.max(Integer.MIN_VALUE,
                Math.min(Integer.MAX_VALUE, v))));
        setters.put(PREPARE_TTL_CONFIG, b::prepareTtlMs);
        setters.put(CompactionConfig.INTERVAL_CONFIG, b::compactionIntervalMs);
        setters.put(CompactionConfig.SMALL_OBJECT_CONFIG, b::compactionSmallObjectBytes);
        setters.put(CompactionConfig.MAX_MERGE_CONFIG, b::compactionMaxMergeBytes);
        setters.put(CompactionConfig.SPLIT_THRESHOLD_CONFIG, b::compactionSplitThresholdBytes);
        setters.put(CompactionConfig.DELETE_DELAY_CONFIG, b::objectDeleteDelayMs);
        for (java.util.Map.Entry<String, java.util.function.LongConsumer> e : setters.entrySet()) {
            Object v = props.get(e.getKey());
            if (v == null) {
                continue;
            }
            long n;
            try {
                n = Long.parseLong(v.toString().trim());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(e.getKey() + ": '" + v + "' is not a number");
            }
            e.getValue().accept(n);
        }
        return b.build();
    }

    public static Builder builder(int nodeId) {
        return new Builder(nodeId);
    }

    public int nodeId() {
        return nodeId;
    }

    public long uploadThresholdBytes() {
        return uploadThresholdBytes;
    }

    public long uploadIntervalMs() {
        return uploadIntervalMs;
    }

    public long splitThresholdBytes() {
        return splitThresholdBytes;
    }

    public long logCacheSizeBytes() {
        return logCacheSizeBytes;
    }

    public long appendTimeoutMs() {
        return appendTimeoutMs;
    }

    public long blockCacheSizeBytes() {
        return blockCacheSizeBytes;
    }

    public int objectBlockSizeBytes() {
        return objectBlockSizeBytes;
    }

    public long prepareTtlMs() {
        return prepareTtlMs;
    }

    /** Fail-fast builder. */
    public static final class Builder {
        private final int nodeId;
        private long uploadThresholdBytes = UPLOAD_THRESHOLD_DEFAULT;
        private long uploadIntervalMs = UPLOAD_INTERVAL_DEFAULT;
        private long splitThresholdBytes = SPLIT_THRESHOLD_DEFAULT;
        private long logCacheSizeBytes = LOG_CACHE_SIZE_DEFAULT;
        private long appendTimeoutMs = APPEND_TIMEOUT_DEFAULT;
        private long blockCacheSizeBytes = BLOCK_CACHE_SIZE_DEFAULT;
        private int objectBlockSizeBytes = OBJECT_BLOCK_SIZE_DEFAULT;
        private long prepareTtlMs = PREPARE_TTL_DEFAULT;
        private long compactionIntervalMs = CompactionConfig.INTERVAL_DEFAULT;
        private long compactionSmallObjectBytes = CompactionConfig.SMALL_OBJECT_DEFAULT;
        private long compactionMaxMergeBytes = CompactionConfig.MAX_MERGE_DEFAULT;
        private long compactionSplitThresholdBytes = CompactionConfig.SPLIT_THRESHOLD_DEFAULT;
        private long objectDeleteDelayMs = CompactionConfig.DELETE_DELAY_DEFAULT;

        private Builder(int nodeId) {
            this.nodeId = nodeId;
        }

        public Builder uploadThresholdBytes(long v) {
            uploadThresholdBytes = v;
            return this;
        }

        public Builder uploadIntervalMs(long v) {
            uploadIntervalMs = v;
            return this;
        }

        public Builder splitThresholdBytes(long v) {
            splitThresholdBytes = v;
            return this;
        }

        public Builder logCacheSizeBytes(long v) {
            logCacheSizeBytes = v;
            return this;
        }

        public Builder appendTimeoutMs(long v) {
            appendTimeoutMs = v;
            return this;
        }

        public Builder blockCacheSizeBytes(long v) {
            blockCacheSizeBytes = v;
            return this;
        }

        public Builder objectBlockSizeBytes(int v) {
            objectBlockSizeBytes = v;
            return this;
        }

        public Builder prepareTtlMs(long v) {
            prepareTtlMs = v;
            return this;
        }

        /** {@code s3.compaction.interval.ms}. */
        public Builder compactionIntervalMs(long v) {
            compactionIntervalMs = v;
            return this;
        }

        /** {@code s3.compaction.small.object.bytes}. */
        public Builder compactionSmallObjectBytes(long v) {
            compactionSmallObjectBytes = v;
            return this;
        }

        /** {@code s3.compaction.max.merge.bytes}. */
        public Builder compactionMaxMergeBytes(long v) {
            compactionMaxMergeBytes = v;
            return this;
        }

        /** {@code s3.compaction.split.threshold.bytes}. */
        public Builder compactionSplitThresholdBytes(long v) {
            compactionSplitThresholdBytes = v;
            return this;
        }

        /** {@code s3.object.delete.delay.ms}. */
        public Builder objectDeleteDelayMs(long v) {
            objectDeleteDelayMs = v;
            return this;
        }

        public StreamStoreConfig build() {
            return new StreamStoreConfig(this);
        }
    }
}
