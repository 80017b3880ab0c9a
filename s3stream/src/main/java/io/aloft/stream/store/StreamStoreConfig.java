package io.aloft.stream.store;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import io.aloft.stream.compaction.CompactionConfig;
import io.aloft.stream.object.ObjectWriterConfig;
import java.util.Map;

/**
 * Settings of a {@link StreamStore}. Immutable. The stream store's keys, with compaction's and the
 * object writer's (declared next to the code that uses them, in {@link CompactionConfig} and
 * {@link ObjectWriterConfig}), make up s3stream's {@link #DEFINITION}; the properties parser and
 * the fail-fast {@link Builder} apply its rules, and a bad value fails with a
 * {@link ConfigException} whose message starts with the key.
 */
public final class StreamStoreConfig {
    /** The node id is given by the caller (the controller's {@code node.id}), not read here. */
    public static final String NODE_ID_CONFIG = "node.id";

    public static final String UPLOAD_THRESHOLD_CONFIG = "s3.wal.upload.threshold.bytes";
    // 160 MiB: above the 128 MiB per PUT that 8 PUTs per GiB needs, with room for partial seals.
    public static final ConfigKey<Long> UPLOAD_THRESHOLD = ConfigKey.longKey(UPLOAD_THRESHOLD_CONFIG)
            .defaultValue(160L << 20).validator(Validator.atLeast(1L))
            .doc("When the log cache holds this many bytes not yet sealed, they are sealed and uploaded as one "
                    + "stream-set object. Each object costs a PUT, so this sets the PUTs per GiB under load "
                    + "(160 MiB: about 6.4); the log cache must hold a few of these.")
            .build();

    public static final String UPLOAD_INTERVAL_CONFIG = "s3.wal.upload.interval.ms";
    public static final ConfigKey<Long> UPLOAD_INTERVAL = ConfigKey.longKey(UPLOAD_INTERVAL_CONFIG)
            .defaultValue(10_000L).validator(Validator.atLeast(1L))
            .doc("Data older than this in the log cache is sealed and uploaded even below the size threshold, "
                    + "bounding how much the WAL holds.")
            .build();

    public static final String UPLOAD_PACING_FACTOR_CONFIG = "s3.wal.upload.pacing.factor";
    public static final ConfigKey<Double> UPLOAD_PACING_FACTOR = ConfigKey.doubleKey(UPLOAD_PACING_FACTOR_CONFIG)
            .defaultValue(2.0).validator(Validator.of("any number; 0 or less: unpaced", v -> null))
            .doc("How many times faster than it filled a sealed log-cache block is uploaded: a block that took T "
                    + "to fill is encoded and written over about T / factor (at most 20 s, at least 8 MiB/s), so a "
                    + "seal does not come as one burst of CPU and disk work beside the appends' WAL writes. Never "
                    + "paced while appends wait for log-cache room or room runs short, nor for a flush or a close. "
                    + "0 or less: upload at full speed.")
            .build();

    public static final String SPLIT_THRESHOLD_CONFIG = "s3.stream.object.split.threshold.bytes";
    // Large on purpose: splitting a 50 % stream out of every seal doubles the PUTs per GiB. A
    // stream's data is contiguous inside a stream-set object, so catch-up reads do not suffer.
    public static final ConfigKey<Long> SPLIT_THRESHOLD = ConfigKey.longKey(SPLIT_THRESHOLD_CONFIG)
            .defaultValue(128L << 20).validator(Validator.atLeast(1L))
            .doc("A stream with at least this many bytes in one upload gets a stream object of its own instead "
                    + "of a share of the stream-set object. Each such object is one more PUT, so the default only "
                    + "splits out a stream that fills most of a seal; compaction splits big streams out of the "
                    + "small objects it merges (s3.compaction.split.threshold.bytes).")
            .build();

    public static final String LOG_CACHE_SIZE_CONFIG = "s3.log.cache.size.bytes";
    // Room for the active seal and two in upload (160 MiB each) with margin; below the WAL's 1 GiB default.
    public static final ConfigKey<Long> LOG_CACHE_SIZE = ConfigKey.longKey(LOG_CACHE_SIZE_CONFIG)
            .defaultValue(512L << 20).validator(Validator.atLeast(1L))
            .doc("Memory for the log cache (the tail of every stream). Uploaded data is evicted, oldest first, "
                    + "beyond it; data not yet uploaded is never evicted, and once it alone fills this budget "
                    + "appends wait (s3.append.timeout.ms). At least s3.wal.upload.threshold.bytes, and below "
                    + "wal.capacity.bytes: data not yet uploaded is held in both.")
            .build();

    public static final String APPEND_TIMEOUT_CONFIG = "s3.append.timeout.ms";
    public static final ConfigKey<Long> APPEND_TIMEOUT = ConfigKey.longKey(APPEND_TIMEOUT_CONFIG)
            .defaultValue(20_000L).validator(Validator.atLeast(0L))
            .doc("When the log cache holds s3.log.cache.size.bytes not yet uploaded (object storage slow or "
                    + "down), appends wait for uploads this long, then fail with StreamStoreFullException. "
                    + "Acknowledged data is never dropped to make room.")
            .build();

    public static final String BLOCK_CACHE_SIZE_CONFIG = "s3.block.cache.size.bytes";
    public static final ConfigKey<Long> BLOCK_CACHE_SIZE = ConfigKey.longKey(BLOCK_CACHE_SIZE_CONFIG)
            .defaultValue(128L << 20).validator(Validator.atLeast(1L))
            .doc("Memory for data blocks read from object storage (catch-up reads); a quarter of it holds "
                    + "readahead (prefetched blocks until their reader passes them).")
            .build();

    public static final String OBJECT_BLOCK_SIZE_CONFIG = ObjectWriterConfig.BLOCK_SIZE_CONFIG;
    public static final String PREPARE_TTL_CONFIG = CompactionConfig.PREPARE_TTL_CONFIG;

    /** Every key s3stream reads: the store's, compaction's and the object writer's. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("s3stream", UPLOAD_THRESHOLD,
            UPLOAD_INTERVAL, UPLOAD_PACING_FACTOR, SPLIT_THRESHOLD, LOG_CACHE_SIZE, APPEND_TIMEOUT, BLOCK_CACHE_SIZE,
            ObjectWriterConfig.BLOCK_SIZE, CompactionConfig.PREPARE_TTL, CompactionConfig.INTERVAL,
            CompactionConfig.SMALL_OBJECT, CompactionConfig.MAX_MERGE, CompactionConfig.SPLIT_THRESHOLD,
            CompactionConfig.DELETE_DELAY, CatchUpReadConfig.THREADS, CatchUpReadConfig.IN_FLIGHT,
            CatchUpReadConfig.RATE);

    private final int nodeId;
    private final long uploadThresholdBytes;
    private final long uploadIntervalMs;
    private final double uploadPacingFactor;
    private final long splitThresholdBytes;
    private final long logCacheSizeBytes;
    private final long appendTimeoutMs;
    private final long blockCacheSizeBytes;
    private final int objectBlockSizeBytes;
    private final long prepareTtlMs;
    private final CompactionConfig compaction;
    private final int catchUpReadThreads;
    private final long catchUpReadInFlightBytes;
    private final long catchUpReadBytesPerSecond;

    private StreamStoreConfig(Builder b) {
        if (b.logCacheSizeBytes < b.uploadThresholdBytes) {
            throw new ConfigException(LOG_CACHE_SIZE_CONFIG, b.logCacheSizeBytes + " is below "
                    + UPLOAD_THRESHOLD_CONFIG + "=" + b.uploadThresholdBytes);
        }
        this.nodeId = b.nodeId;
        this.uploadThresholdBytes = b.uploadThresholdBytes;
        this.uploadIntervalMs = b.uploadIntervalMs;
        this.uploadPacingFactor = b.uploadPacingFactor;
        this.splitThresholdBytes = b.splitThresholdBytes;
        this.logCacheSizeBytes = b.logCacheSizeBytes;
        this.appendTimeoutMs = b.appendTimeoutMs;
        this.blockCacheSizeBytes = b.blockCacheSizeBytes;
        this.objectBlockSizeBytes = b.objectBlockSizeBytes;
        this.prepareTtlMs = b.prepareTtlMs;
        this.catchUpReadThreads = b.catchUpReadThreads;
        this.catchUpReadInFlightBytes = b.catchUpReadInFlightBytes;
        this.catchUpReadBytesPerSecond = b.catchUpReadBytesPerSecond;
        // Built now so a clash between compaction's settings fails here, naming the key at fault.
        this.compaction = CompactionConfig.builder(b.nodeId)
                .intervalMs(b.compactionIntervalMs)
                .smallObjectBytes(b.compactionSmallObjectBytes)
                .maxMergeBytes(b.compactionMaxMergeBytes)
                .splitThresholdBytes(b.compactionSplitThresholdBytes)
                .deleteDelayMs(b.objectDeleteDelayMs)
                .prepareTtlMs(b.prepareTtlMs)
                .objectBlockSizeBytes(b.objectBlockSizeBytes)
                .build();
    }

    /** The compaction settings of this store (keys declared in {@link CompactionConfig}). */
    public CompactionConfig compaction() {
        return compaction;
    }

    /**
     * Reads the keys of {@link #DEFINITION} from properties (others are ignored; missing ones take
     * their defaults).
     *
     * @throws ConfigException naming the first bad key
     */
    public static StreamStoreConfig fromProperties(int nodeId, Map<?, ?> props) {
        ConfigValues v = DEFINITION.parse(props);
        return builder(nodeId)
                .uploadThresholdBytes(v.get(UPLOAD_THRESHOLD))
                .uploadIntervalMs(v.get(UPLOAD_INTERVAL))
                .uploadPacingFactor(v.get(UPLOAD_PACING_FACTOR))
                .splitThresholdBytes(v.get(SPLIT_THRESHOLD))
                .logCacheSizeBytes(v.get(LOG_CACHE_SIZE))
                .appendTimeoutMs(v.get(APPEND_TIMEOUT))
                .blockCacheSizeBytes(v.get(BLOCK_CACHE_SIZE))
                .objectBlockSizeBytes(v.get(ObjectWriterConfig.BLOCK_SIZE))
                .prepareTtlMs(v.get(CompactionConfig.PREPARE_TTL))
                .compactionIntervalMs(v.get(CompactionConfig.INTERVAL))
                .compactionSmallObjectBytes(v.get(CompactionConfig.SMALL_OBJECT))
                .compactionMaxMergeBytes(v.get(CompactionConfig.MAX_MERGE))
                .compactionSplitThresholdBytes(v.get(CompactionConfig.SPLIT_THRESHOLD))
                .objectDeleteDelayMs(v.get(CompactionConfig.DELETE_DELAY))
                .catchUpReadThreads(v.get(CatchUpReadConfig.THREADS))
                .catchUpReadInFlightBytes(v.get(CatchUpReadConfig.IN_FLIGHT))
                .catchUpReadBytesPerSecond(v.get(CatchUpReadConfig.RATE))
                .build();
    }

    /**
     * @throws ConfigException naming {@value #NODE_ID_CONFIG} if {@code nodeId} is negative
     */
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

    /** {@value #UPLOAD_PACING_FACTOR_CONFIG}; 0 or less: uploads are not paced. */
    public double uploadPacingFactor() {
        return uploadPacingFactor;
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

    /** {@value CatchUpReadConfig#THREADS_CONFIG}, resolved: never 0. */
    public int catchUpReadThreads() {
        return CatchUpReadConfig.threads(catchUpReadThreads);
    }

    public long catchUpReadInFlightBytes() {
        return catchUpReadInFlightBytes;
    }

    /** 0: no limit. */
    public long catchUpReadBytesPerSecond() {
        return catchUpReadBytesPerSecond;
    }

    /**
     * Fail-fast builder: each setter checks its value against the key's validator at once;
     * {@link #build()} checks the values against each other. Not thread-safe.
     */
    public static final class Builder {
        private final int nodeId;
        private long uploadThresholdBytes = UPLOAD_THRESHOLD.defaultValue();
        private long uploadIntervalMs = UPLOAD_INTERVAL.defaultValue();
        private double uploadPacingFactor = UPLOAD_PACING_FACTOR.defaultValue();
        private long splitThresholdBytes = SPLIT_THRESHOLD.defaultValue();
        private long logCacheSizeBytes = LOG_CACHE_SIZE.defaultValue();
        private long appendTimeoutMs = APPEND_TIMEOUT.defaultValue();
        private long blockCacheSizeBytes = BLOCK_CACHE_SIZE.defaultValue();
        private int objectBlockSizeBytes = ObjectWriterConfig.BLOCK_SIZE.defaultValue();
        private long prepareTtlMs = CompactionConfig.PREPARE_TTL.defaultValue();
        private long compactionIntervalMs = CompactionConfig.INTERVAL.defaultValue();
        private long compactionSmallObjectBytes = CompactionConfig.SMALL_OBJECT.defaultValue();
        private long compactionMaxMergeBytes = CompactionConfig.MAX_MERGE.defaultValue();
        private long compactionSplitThresholdBytes = CompactionConfig.SPLIT_THRESHOLD.defaultValue();
        private long objectDeleteDelayMs = CompactionConfig.DELETE_DELAY.defaultValue();
        private int catchUpReadThreads = CatchUpReadConfig.THREADS.defaultValue();
        private long catchUpReadInFlightBytes = CatchUpReadConfig.IN_FLIGHT.defaultValue();
        private long catchUpReadBytesPerSecond = CatchUpReadConfig.RATE.defaultValue();

        private Builder(int nodeId) {
            if (nodeId < 0) {
                throw new ConfigException(NODE_ID_CONFIG, nodeId + " is negative");
            }
            this.nodeId = nodeId;
        }

        public Builder uploadThresholdBytes(long v) {
            uploadThresholdBytes = UPLOAD_THRESHOLD.validate(v);
            return this;
        }

        /** {@value #UPLOAD_PACING_FACTOR_CONFIG}: 0 or less turns pacing off. */
        public Builder uploadPacingFactor(double v) {
            uploadPacingFactor = UPLOAD_PACING_FACTOR.validate(v);
            return this;
        }

        public Builder uploadIntervalMs(long v) {
            uploadIntervalMs = UPLOAD_INTERVAL.validate(v);
            return this;
        }

        public Builder splitThresholdBytes(long v) {
            splitThresholdBytes = SPLIT_THRESHOLD.validate(v);
            return this;
        }

        public Builder logCacheSizeBytes(long v) {
            logCacheSizeBytes = LOG_CACHE_SIZE.validate(v);
            return this;
        }

        public Builder appendTimeoutMs(long v) {
            appendTimeoutMs = APPEND_TIMEOUT.validate(v);
            return this;
        }

        public Builder blockCacheSizeBytes(long v) {
            blockCacheSizeBytes = BLOCK_CACHE_SIZE.validate(v);
            return this;
        }

        /** {@value ObjectWriterConfig#BLOCK_SIZE_CONFIG}, for uploads and compaction alike. */
        public Builder objectBlockSizeBytes(int v) {
            objectBlockSizeBytes = ObjectWriterConfig.BLOCK_SIZE.validate(v);
            return this;
        }

        /** {@value CompactionConfig#PREPARE_TTL_CONFIG}, for uploads and compaction alike. */
        public Builder prepareTtlMs(long v) {
            prepareTtlMs = CompactionConfig.PREPARE_TTL.validate(v);
            return this;
        }

        /** {@value CompactionConfig#INTERVAL_CONFIG}. */
        public Builder compactionIntervalMs(long v) {
            compactionIntervalMs = CompactionConfig.INTERVAL.validate(v);
            return this;
        }

        /** {@value CompactionConfig#SMALL_OBJECT_CONFIG}. */
        public Builder compactionSmallObjectBytes(long v) {
            compactionSmallObjectBytes = CompactionConfig.SMALL_OBJECT.validate(v);
            return this;
        }

        /** {@value CompactionConfig#MAX_MERGE_CONFIG}. */
        public Builder compactionMaxMergeBytes(long v) {
            compactionMaxMergeBytes = CompactionConfig.MAX_MERGE.validate(v);
            return this;
        }

        /** {@value CompactionConfig#SPLIT_THRESHOLD_CONFIG}. */
        public Builder compactionSplitThresholdBytes(long v) {
            compactionSplitThresholdBytes = CompactionConfig.SPLIT_THRESHOLD.validate(v);
            return this;
        }

        /** {@value CompactionConfig#DELETE_DELAY_CONFIG}. */
        public Builder objectDeleteDelayMs(long v) {
            objectDeleteDelayMs = CompactionConfig.DELETE_DELAY.validate(v);
            return this;
        }

        /** {@value CatchUpReadConfig#THREADS_CONFIG}. */
        public Builder catchUpReadThreads(int v) {
            catchUpReadThreads = CatchUpReadConfig.THREADS.validate(v);
            return this;
        }

        /** {@value CatchUpReadConfig#IN_FLIGHT_CONFIG}. */
        public Builder catchUpReadInFlightBytes(long v) {
            catchUpReadInFlightBytes = CatchUpReadConfig.IN_FLIGHT.validate(v);
            return this;
        }

        /** {@value CatchUpReadConfig#RATE_CONFIG}. */
        public Builder catchUpReadBytesPerSecond(long v) {
            catchUpReadBytesPerSecond = CatchUpReadConfig.RATE.validate(v);
            return this;
        }

        /**
         * @throws ConfigException if {@value #LOG_CACHE_SIZE_CONFIG} is below
         *     {@value #UPLOAD_THRESHOLD_CONFIG}, or compaction's settings clash
         */
        public StreamStoreConfig build() {
            return new StreamStoreConfig(this);
        }
    }
}
