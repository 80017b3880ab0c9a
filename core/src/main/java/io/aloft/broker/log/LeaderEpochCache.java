package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Which leader epoch wrote which offsets of a partition: the first offset of each epoch, in
 * increasing order of both (Kafka's leader-epoch checkpoint, KIP-101 and KIP-279). An epoch starts
 * where the log ended when a broker opened the partition with it, or, replayed from stored batches,
 * at the first batch stamped with it. OffsetForLeaderEpoch answers from it, so a consumer can tell
 * whether the log it read from was truncated after a leader change.
 *
 * <p>Bounded by the number of leader changes the retained log spans: entries wholly below the log
 * start are dropped ({@link #truncateFromStart}).
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} calls it under its lock.
 */
final class LeaderEpochCache {
    /** Kafka's "no epoch" (UNDEFINED_EPOCH). */
    static final int UNDEFINED_EPOCH = -1;
    /** Bytes of one entry in a checkpoint: epoch, start offset. */
    static final int ENTRY_BYTES = 4 + 8;

    private int[] epochs = new int[4];
    private long[] startOffsets = new long[4];
    private int size;

    int size() {
        return size;
    }

    /** The newest epoch, or {@link #UNDEFINED_EPOCH} when empty. */
    int latestEpoch() {
        return size == 0 ? UNDEFINED_EPOCH : epochs[size - 1];
    }

    int epoch(int i) {
        return epochs[i];
    }

    long startOffset(int i) {
        return startOffsets[i];
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}, if it is newer than every epoch
     * known; an epoch already known, or older, changes nothing (a replayed batch of the current
     * epoch, or an epoch opened with no record written under it and then replayed over).
     */
    void assign(int epoch, long startOffset) {
        if (epoch < 0 || epoch <= latestEpoch()) {
            return;
        }
        if (size > 0 && startOffset < startOffsets[size - 1]) {
            throw new IllegalStateException("epoch " + epoch + " would start at " + startOffset + ", before epoch "
                    + epochs[size - 1] + " at " + startOffsets[size - 1]);
        }
        if (size > 0 && startOffset == startOffsets[size - 1]) {
            // The previous epoch wrote nothing: this one replaces it, as no offset belongs to it.
            epochs[size - 1] = epoch;
            return;
        }
        if (size == epochs.length) {
            epochs = Arrays.copyOf(epochs, size * 2);
            startOffsets = Arrays.copyOf(startOffsets, size * 2);
        }
        epochs[size] = epoch;
        startOffsets[size] = startOffset;
        size++;
    }

    /**
     * The log now starts at {@code logStartOffset}: epochs that end at or below it are dropped, and
     * the epoch holding it starts there.
     */
    void truncateFromStart(long logStartOffset) {
        int firstKept = 0;
        while (firstKept + 1 < size && startOffsets[firstKept + 1] <= logStartOffset) {
            firstKept++;
        }
        if (firstKept > 0) {
            System.arraycopy(epochs, firstKept, epochs, 0, size - firstKept);
            System.arraycopy(startOffsets, firstKept, startOffsets, 0, size - firstKept);
            size -= firstKept;
        }
        if (size > 0 && startOffsets[0] < logStartOffset) {
            startOffsets[0] = logStartOffset;
        }
    }

    /**
     * Where {@code requestedEpoch} ends: for the newest epoch, the log end; for an older epoch this
     * log holds, the start of the next epoch it holds (answered with the epoch itself); for an epoch
     * it does not hold, the largest epoch below it and that epoch's end, or, when every held epoch
     * is newer (the older ones were deleted), the requested epoch and the start of the oldest held
     * one. An epoch above every held one, or {@link #UNDEFINED_EPOCH}, is undefined.
     */
    EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        if (requestedEpoch == UNDEFINED_EPOCH || size == 0) {
            return EpochEndOffset.UNDEFINED;
        }
        if (requestedEpoch == latestEpoch()) {
            return new EpochEndOffset(requestedEpoch, logEndOffset);
        }
        int higher = 0;
        while (higher < size && epochs[higher] <= requestedEpoch) {
            higher++;
        }
        if (higher == size) {
            return EpochEndOffset.UNDEFINED;
        }
        if (higher == 0) {
            return new EpochEndOffset(requestedEpoch, startOffsets[0]);
        }
        return new EpochEndOffset(epochs[higher - 1], startOffsets[higher]);
    }

    /*
     * Checkpoint layout (big-endian): entry count (int), then per entry: epoch (int), start offset (long).
     */

    int checkpointSize() {
        return 4 + size * ENTRY_BYTES;
    }

    void writeCheckpoint(ByteBuffer out) {
        out.putInt(size);
        for (int i = 0; i < size; i++) {
            out.putInt(epochs[i]).putLong(startOffsets[i]);
        }
    }

    /** Replaces every entry with those of a checkpoint written by {@link #writeCheckpoint}. */
    void readCheckpoint(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining() / ENTRY_BYTES) {
            throw new IllegalStateException("leader-epoch section claims " + n + " entries");
        }
        size = 0;
        for (int i = 0; i < n; i++) {
            assign(in.getInt(), in.getLong());
        }
    }
}
