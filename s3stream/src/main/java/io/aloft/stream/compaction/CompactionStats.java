package io.aloft.stream.compaction;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running counters of one {@link CompactionManager}, and what its last round saw of the node's
 * objects.
 *
 * <p>The last round's view is a by-product of compaction's own metadata queries (this node's
 * stream-set objects, and the stream objects of each stream it has open), so it costs nothing
 * extra. It is an estimate of what the node is responsible for, not an exact bill: objects marked
 * for deletion but not deleted yet are not in it, stream objects past the first
 * {@code Merger.STREAM_OBJECT_LIMIT} of a stream are not seen, and a round whose merge budget ran
 * out skips the remaining streams' stream objects. Summed over the brokers of a cluster it covers
 * each live object once: stream-set objects by the broker that wrote them, stream objects by the
 * broker that has the stream open.
 *
 * <p>Thread-safe: written by the compaction thread, read from any.
 */
public final class CompactionStats {
    private final LongAdder rounds = new LongAdder();
    private final LongAdder merges = new LongAdder();
    private final LongAdder objectsMerged = new LongAdder();
    private final LongAdder objectsWritten = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder abandoned = new LongAdder();
    private final LongAdder objectsDeleted = new LongAdder();
    private volatile long seenObjects;
    private volatile long seenBytes;
    private volatile boolean seen;

    void recordRound(long deleted) {
        rounds.increment();
        objectsDeleted.add(deleted);
    }

    void recordMerge(Merger.Outcome outcome) {
        bytesRead.add(outcome.bytesRead());
        bytesWritten.add(outcome.bytesWritten());
        objectsWritten.add(outcome.outputIds().size());
        if (outcome.committed()) {
            merges.increment();
            objectsMerged.add(outcome.inputIds().size());
        } else {
            abandoned.increment();
        }
    }

    void recordSeen(long objects, long bytes) {
        seenObjects = objects;
        seenBytes = bytes;
        seen = true;
    }

    /** Compaction rounds run. */
    public long rounds() {
        return rounds.sum();
    }

    /** Merges committed. */
    public long merges() {
        return merges.sum();
    }

    /** Merges whose commit metadata rejected (their output is abandoned). */
    public long abandoned() {
        return abandoned.sum();
    }

    /** Source objects replaced by committed merges. */
    public long objectsMerged() {
        return objectsMerged.sum();
    }

    /** Objects merges wrote, committed or not. */
    public long objectsWritten() {
        return objectsWritten.sum();
    }

    /** Bytes of the source objects merges read. */
    public long bytesRead() {
        return bytesRead.sum();
    }

    /** Bytes of the objects merges wrote. */
    public long bytesWritten() {
        return bytesWritten.sum();
    }

    /** Released objects deleted from object storage. */
    public long objectsDeleted() {
        return objectsDeleted.sum();
    }

    /** Whether a round has run, so {@link #seenObjects()} and {@link #seenBytes()} mean something. */
    public boolean hasSeen() {
        return seen;
    }

    /** Objects the last round listed (see the class comment: an estimate). */
    public long seenObjects() {
        return seenObjects;
    }

    /** Bytes of the objects the last round listed (see the class comment: an estimate). */
    public long seenBytes() {
        return seenBytes;
    }
}
