package io.aloft.stream.compaction;

import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.Validator;
import io.aloft.stream.object.ObjectWriterConfig;

/**
 * Settings of a {@link CompactionManager}. Immutable. Built by a fail-fast {@link Builder}: a bad
 * value fails on the spot with a {@link ConfigException} (an {@link IllegalArgumentException})
 * whose message starts with the key, an option set twice with an {@link IllegalStateException}.
 *
 * <p>The keys are declared here and read from properties by the stream store's configuration,
 * whose definition lists them ({@code StreamStoreConfig.DEFINITION}); the object keys compaction
 * shares with uploads ({@value #PREPARE_TTL_CONFIG}, {@value #DELETE_DELAY_CONFIG},
 * {@value ObjectWriterConfig#BLOCK_SIZE_CONFIG}) are declared here or with the object writer,
 * below the store.
 */
public final class CompactionConfig {
    public static final String NODE_ID_CONFIG = "node.id";

    public static final String INTERVAL_CONFIG = "s3.compaction.interval.ms";
    public static final ConfigKey<Long> INTERVAL = ConfigKey.longKey(INTERVAL_CONFIG).defaultValue(60_000L)
            .validator(Validator.atLeast(1L))
            .doc("Pause between two compaction rounds (merge, then delete).")
            .build();

    public static final String SMALL_OBJECT_CONFIG = "s3.compaction.small.object.bytes";
    public static final ConfigKey<Long> SMALL_OBJECT = ConfigKey.longKey(SMALL_OBJECT_CONFIG).defaultValue(16L << 20)
            .validator(Validator.atLeast(1L))
            .doc("Stream-set objects, and stream objects, smaller than this are merge candidates: consecutive "
                    + "ones are rewritten as one object. At most s3.compaction.max.merge.bytes.")
            .build();

    public static final String MAX_MERGE_CONFIG = "s3.compaction.max.merge.bytes";
    public static final ConfigKey<Long> MAX_MERGE = ConfigKey.longKey(MAX_MERGE_CONFIG).defaultValue(256L << 20)
            .validator(Validator.atLeast(1L))
            .doc("Most object bytes one compaction round reads (and so rewrites); bounds the round's time, "
                    + "memory and request cost.")
            .build();

    public static final String SPLIT_THRESHOLD_CONFIG = "s3.compaction.split.threshold.bytes";
    public static final ConfigKey<Long> SPLIT_THRESHOLD = ConfigKey.longKey(SPLIT_THRESHOLD_CONFIG)
            .defaultValue(8L << 20).validator(Validator.atLeast(1L))
            .doc("A stream with at least this many bytes in the stream-set objects merged by one round gets a "
                    + "stream object of its own instead of a share of the merged stream-set object.")
            .build();

    public static final String DELETE_DELAY_CONFIG = "s3.object.delete.delay.ms";
    public static final ConfigKey<Long> DELETE_DELAY = ConfigKey.longKey(DELETE_DELAY_CONFIG).defaultValue(60_000L)
            .validator(Validator.atLeast(0L))
            .doc("An object released by compaction or trims is deleted from object storage only once it has "
                    + "been marked for deletion this long, so readers that looked it up just before still find it.")
            .build();

    public static final String PREPARE_TTL_CONFIG = "s3.object.prepare.ttl.ms";
    public static final ConfigKey<Long> PREPARE_TTL = ConfigKey.longKey(PREPARE_TTL_CONFIG)
            .defaultValue(60 * 60_000L).validator(Validator.atLeast(1L))
            .doc("An object id prepared for an upload or a compaction's output that is not committed within this "
                    + "time is marked for deletion (its writer failed, or the compaction was rejected).")
            .build();

    private final int nodeId;
    private final long intervalMs;
    private final long smallObjectBytes;
    private final long maxMergeBytes;
    private final long splitThresholdBytes;
    private final long deleteDelayMs;
    private final long prepareTtlMs;
    private final int objectBlockSizeBytes;

    private CompactionConfig(Builder b) {
        require(b.smallObjectBytes <= b.maxMergeBytes, SMALL_OBJECT_CONFIG, b.smallObjectBytes + " is above "
                + MAX_MERGE_CONFIG + "=" + b.maxMergeBytes + ": no two candidates could ever be merged");
        this.nodeId = b.nodeId;
        this.intervalMs = b.intervalMs;
        this.smallObjectBytes = b.smallObjectBytes;
        this.maxMergeBytes = b.maxMergeBytes;
        this.splitThresholdBytes = b.splitThresholdBytes;
        this.deleteDelayMs = b.deleteDelayMs;
        this.prepareTtlMs = b.prepareTtlMs;
        this.objectBlockSizeBytes = b.objectBlockSizeBytes;
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new ConfigException(key, message);
        }
    }

    /**
     * @throws ConfigException if {@code nodeId} is negative
     */
    public static Builder builder(int nodeId) {
        require(nodeId >= 0, NODE_ID_CONFIG, nodeId + " is negative");
        return new Builder(nodeId);
    }

    public int nodeId() {
        return nodeId;
    }

    public long intervalMs() {
        return intervalMs;
    }

    public long smallObjectBytes() {
        return smallObjectBytes;
    }

    public long maxMergeBytes() {
        return maxMergeBytes;
    }

    public long splitThresholdBytes() {
        return splitThresholdBytes;
    }

    public long deleteDelayMs() {
        return deleteDelayMs;
    }

    public long prepareTtlMs() {
        return prepareTtlMs;
    }

    public int objectBlockSizeBytes() {
        return objectBlockSizeBytes;
    }

    @Override
    public String toString() {
        return "CompactionConfig{" + NODE_ID_CONFIG + "=" + nodeId + ", " + INTERVAL_CONFIG + "=" + intervalMs + ", "
                + SMALL_OBJECT_CONFIG + "=" + smallObjectBytes + ", " + MAX_MERGE_CONFIG + "=" + maxMergeBytes + ", "
                + SPLIT_THRESHOLD_CONFIG + "=" + splitThresholdBytes + ", " + DELETE_DELAY_CONFIG + "="
                + deleteDelayMs + ", " + PREPARE_TTL_CONFIG + "=" + prepareTtlMs + ", "
                + ObjectWriterConfig.BLOCK_SIZE_CONFIG + "=" + objectBlockSizeBytes + "}";
    }

    /**
     * Fail-fast builder: each setter checks its value against the key's validator at once and may
     * be called only once; {@link #build()} checks the options against each other. Not thread-safe.
     */
    public static final class Builder {
        private final int nodeId;
        private long intervalMs = INTERVAL.defaultValue();
        private long smallObjectBytes = SMALL_OBJECT.defaultValue();
        private long maxMergeBytes = MAX_MERGE.defaultValue();
        private long splitThresholdBytes = SPLIT_THRESHOLD.defaultValue();
        private long deleteDelayMs = DELETE_DELAY.defaultValue();
        private long prepareTtlMs = PREPARE_TTL.defaultValue();
        private int objectBlockSizeBytes = ObjectWriterConfig.BLOCK_SIZE.defaultValue();
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder(int nodeId) {
            this.nodeId = nodeId;
        }

        /** {@value #INTERVAL_CONFIG}: positive. */
        public Builder intervalMs(long v) {
            once(INTERVAL_CONFIG);
            intervalMs = INTERVAL.validate(v);
            return this;
        }

        /** {@value #SMALL_OBJECT_CONFIG}: positive, at most {@value #MAX_MERGE_CONFIG}. */
        public Builder smallObjectBytes(long v) {
            once(SMALL_OBJECT_CONFIG);
            smallObjectBytes = SMALL_OBJECT.validate(v);
            return this;
        }

        /** {@value #MAX_MERGE_CONFIG}: positive, at least {@value #SMALL_OBJECT_CONFIG}. */
        public Builder maxMergeBytes(long v) {
            once(MAX_MERGE_CONFIG);
            maxMergeBytes = MAX_MERGE.validate(v);
            return this;
        }

        /** {@value #SPLIT_THRESHOLD_CONFIG}: positive. */
        public Builder splitThresholdBytes(long v) {
            once(SPLIT_THRESHOLD_CONFIG);
            splitThresholdBytes = SPLIT_THRESHOLD.validate(v);
            return this;
        }

        /** {@value #DELETE_DELAY_CONFIG}: zero or more. */
        public Builder deleteDelayMs(long v) {
            once(DELETE_DELAY_CONFIG);
            deleteDelayMs = DELETE_DELAY.validate(v);
            return this;
        }

        /** {@value #PREPARE_TTL_CONFIG}: positive. */
        public Builder prepareTtlMs(long v) {
            once(PREPARE_TTL_CONFIG);
            prepareTtlMs = PREPARE_TTL.validate(v);
            return this;
        }

        /** {@value ObjectWriterConfig#BLOCK_SIZE_CONFIG}: 1024 to 67108864. */
        public Builder objectBlockSizeBytes(int v) {
            once(ObjectWriterConfig.BLOCK_SIZE_CONFIG);
            objectBlockSizeBytes = ObjectWriterConfig.BLOCK_SIZE.validate(v);
            return this;
        }

        /**
         * @throws ConfigException if {@value #SMALL_OBJECT_CONFIG} is above {@value #MAX_MERGE_CONFIG}
         */
        public CompactionConfig build() {
            return new CompactionConfig(this);
        }

        private void once(String key) {
            if (!set.add(key)) {
                throw new IllegalStateException(key + ": already set");
            }
        }
    }
}
