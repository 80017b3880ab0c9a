package io.aloft.broker.log;

/**
 * The time index of a compacted range, built by the log cleaner from the batches it writes, in
 * order, and spliced into the partition's index when the range is committed
 * ({@link PartitionLog#commitCompaction}), so retention, ListOffsets by timestamp and the log's size
 * follow the compacted data rather than what it replaced.
 *
 * <p>Not thread-safe: confined to the cleaner building it, then handed over.
 */
public final class CompactedIndex {
    private final LogIndex index;
    private final int intervalBytes;

    /**
     * @param startOffset where the range begins
     * @param intervalBytes the topic's {@code index.interval.bytes}
     */
    public CompactedIndex(long startOffset, int intervalBytes) {
        this.index = new LogIndex(startOffset);
        this.intervalBytes = intervalBytes;
    }

    /**
     * Adds the next written batch.
     *
     * @param maxTimestamp its largest record timestamp, -1 when it holds no record
     * @throws IllegalStateException if it does not start where the previous one ended
     */
    public void add(long baseOffset, int count, long maxTimestamp, int bytes) {
        index.add(baseOffset, count, maxTimestamp, bytes, intervalBytes);
    }

    /** Offset just past the last batch added. */
    public long endOffset() {
        return index.endOffset();
    }

    /** Bytes of the batches added. */
    public long totalBytes() {
        return index.totalBytes();
    }

    LogIndex index() {
        return index;
    }
}
