package io.aloft.stream.compaction;

import java.util.List;

/**
 * Settings of a {@link CompactionManager}. Immutable. Built by a fail-fast {@link Builder}: a bad
 * value, or an option set twice, fails on the spot with an {@link IllegalArgumentException} (or
 * {@link IllegalStateException}) whose message starts with the key.
 */
public final class CompactionConfig {
    public static final String NODE_ID_CONFIG = "node.id";
    public static final String NODE_ID_DOC = "Id of this node: its stream-set objects are the ones it compacts, and "
            + "it writes the new objects under its id.";

    public static final String INTERVAL_CONFIG = "s3.compaction.interval.ms";
    public static final String INTERVAL_DOC = "Pause between two compaction rounds (merge, then delete).";
    public static final long INTERVAL_DEFAULT = 60_000;

    public static final String SMALL_OBJECT_CONFIG = "s3.compaction.small.object.bytes";
    public static final String SMALL_OBJECT_DOC = "Stream-set objects, and stream objects, smaller than this are "
            + "merge candidates: consecutive ones are rewritten as one object.";
    public static final long SMALL_OBJECT_DEFAULT = 16L << 20;

    public static final String MAX_MERGE_CONFIG = "s3.compaction.max.merge.bytes";
    public static final String MAX_MERGE_DOC = "Most object bytes one compaction round reads (and so rewrites); "
            + "bounds the round's time, memory and request cost.";
    public static final long MAX_MERGE_DEFAULT = 256L << 20;

    public static final String SPLIT_THRESHOLD_CONFIG = "s3.compaction.split.threshold.bytes";
    public static final String SPLIT_THRESHOLD_DOC = "A stream with at least this many bytes in the stream-set "
            + "objects merged by one round gets a stream object of its own instead of a share of the merged "
            + "stream-set object.";
    public static final long SPLIT_THRESHOLD_DEFAULT = 8L << 20;

    public static final String DELETE_DELAY_CONFIG = "s3.object.delete.delay.ms";
    public static final String DELETE_DELAY_DOC = "An object is deleted from object storage only once it has been "
            + "marked for deletion this long, so readers that looked it up just before still find it.";
    public static final long DELETE_DELAY_DEFAULT = 60_000;

    public static final String PREPARE_TTL_CONFIG = "s3.compaction.prepare.ttl.ms";
    public static final String PREPARE_TTL_DOC = "Object ids prepared for a compaction's output that are not "
            + "committed within this time are marked for deletion (the compaction failed or was rejected).";
    public static final long PREPARE_TTL_DEFAULT = 60 * 60_000L;

    public static final String OBJECT_BLOCK_SIZE_CONFIG = "s3.object.block.size.bytes";
    public static final String OBJECT_BLOCK_SIZE_DOC = "Target size of a data block inside the objects compaction "
            + "writes: the unit of a ranged read.";
    public static final int OBJECT_BLOCK_SIZE_DEFAULT = 512 * 1024;

    /** One documented key. */
    public record Key(String name, String defaultValue, String doc) {
    }

    public static final List<Key> KEYS = List.of(
            new Key(NODE_ID_CONFIG, "(required)", NODE_ID_DOC),
            new Key(INTERVAL_CONFIG, Long.toString(INTERVAL_DEFAULT), INTERVAL_DOC),
            new Key(SMALL_OBJECT_CONFIG, Long.toString(SMALL_OBJECT_DEFAULT), SMALL_OBJECT_DOC),
            new Key(MAX_MERGE_CONFIG, Long.toString(MAX_MERGE_DEFAULT), MAX_MERGE_DOC),
            new Key(SPLIT_THRESHOLD_CONFIG, Long.toString(SPLIT_THRESHOLD_DEFAULT), SPLIT_THRESHOLD_DOC),
            new Key(DELETE_DELAY_CONFIG, Long.toString(DELETE_DELAY_DEFAULT), DELETE_DELAY_DOC),
            new Key(PREPARE_TTL_CONFIG, Long.toString(PREPARE_TTL_DEFAULT), PREPARE_TTL_DOC),
            new Key(OBJECT_BLOCK_SIZE_CONFIG, Integer.toString(OBJECT_BLOCK_SIZE_DEFAULT), OBJECT_BLOCK_SIZE_DOC));

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
            throw new IllegalArgumentException(key + ": " + message);
        }
    }

    /**
     * @throws IllegalArgumentException if {@code nodeId} is negative
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
                + deleteDelayMs + ", " + PREPARE_TTL_CONFIG + "=" + prepareTtlMs + ", " + OBJECT_BLOCK_SIZE_CONFIG
                + "=" + objectBlockSizeBytes + "}";
    }

    /**
     * Fail-fast builder: each setter checks its value at once and may be called only once;
     * {@link #build()} checks the options against each other. Not thread-safe.
     */
    public static final class Builder {
        private final int nodeId;
        private long intervalMs = INTERVAL_DEFAULT;
        private long smallObjectBytes = SMALL_OBJECT_DEFAULT;
        private long maxMergeBytes = MAX_MERGE_DEFAULT;
        private long splitThresholdBytes = SPLIT_THRESHOLD_DEFAULT;
        private long deleteDelayMs = DELETE_DELAY_DEFAULT;
        private long prepareTtlMs = PREPARE_TTL_DEFAULT;
        private int objectBlockSizeBytes = OBJECT_BLOCK_SIZE_DEFAULT;
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder(int nodeId) {
            this.nodeId = nodeId;
        }

        /** {@value #INTERVAL_CONFIG}: positive. */
        public Builder intervalMs(long v) {
            once(INTERVAL_CONFIG);
            require(v > 0, INTERVAL_CONFIG, v + " is not positive");
            intervalMs = v;
            return this;
        }

        /** {@value #SMALL_OBJECT_CONFIG}: positive, at most {@value #MAX_MERGE_CONFIG}. */
        public Builder smallObjectBytes(long v) {
            once(SMALL_OBJECT_CONFIG);
            require(v > 0, SMALL_OBJECT_CONFIG, v + " is not positive");
            smallObjectBytes = v;
            return this;
        }

        /** {@value #MAX_MERGE_CONFIG}: positive, at least {@value #SMALL_OBJECT_CONFIG}. */
        public Builder maxMergeBytes(long v) {
            once(MAX_MERGE_CONFIG);
            require(v > 0, MAX_MERGE_CONFIG, v + " is not positive");
            maxMergeBytes = v;
            return this;
        }

        /** {@value #SPLIT_THRESHOLD_CONFIG}: positive. */
        public Builder splitThresholdBytes(long v) {
            once(SPLIT_THRESHOLD_CONFIG);
            require(v > 0, SPLIT_THRESHOLD_CONFIG, v + " is not positive");
            splitThresholdBytes = v;
            return this;
        }

        /** {@value #DELETE_DELAY_CONFIG}: zero or more. */
        public Builder deleteDelayMs(long v) {
            once(DELETE_DELAY_CONFIG);
            require(v >= 0, DELETE_DELAY_CONFIG, v + " is negative");
            deleteDelayMs = v;
            return this;
        }

        /** {@value #PREPARE_TTL_CONFIG}: positive. */
        public Builder prepareTtlMs(long v) {
            once(PREPARE_TTL_CONFIG);
            require(v > 0, PREPARE_TTL_CONFIG, v + " is not positive");
            prepareTtlMs = v;
            return this;
        }

        /** {@value #OBJECT_BLOCK_SIZE_CONFIG}: 1024 to 67108864. */
        public Builder objectBlockSizeBytes(int v) {
            once(OBJECT_BLOCK_SIZE_CONFIG);
            require(v >= 1024 && v <= (64 << 20), OBJECT_BLOCK_SIZE_CONFIG, v + " is outside [1024, 67108864]");
            objectBlockSizeBytes = v;
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@value #SMALL_OBJECT_CONFIG} is above {@value #MAX_MERGE_CONFIG}
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
