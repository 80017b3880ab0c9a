package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The time index of a partition: consecutive entries, each covering whole batches from its base
 * offset to the next entry's base (the last one to {@link #endOffset()}), with the largest
 * timestamp and the bytes of those batches. A batch joins the last entry while that entry holds
 * fewer than {@code index.interval.bytes}, so an entry is about that size (or one larger batch).
 *
 * <p>Retention and DeleteRecords drop whole entries from the head; a timestamp lookup finds the
 * first entry whose largest timestamp reaches the target and reads only that entry's batches.
 * Entries live in parallel primitive arrays (20 bytes each) to keep many partitions cheap.
 *
 * <p>Tracks which entries changed since the last checkpoint so a checkpoint carries only those.
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} calls it under its lock.
 */
final class LogIndex {
    /** Bytes of one entry in a checkpoint: base offset, max timestamp, bytes. */
    static final int ENTRY_BYTES = 8 + 8 + 4;

    private long[] base = new long[16];
    private long[] maxTimestamp = new long[16];
    private int[] bytes = new int[16];
    /** Live entries are [head, tail). */
    private int head;
    private int tail;
    private long endOffset;
    private long totalBytes;
    /** Base offset of the first entry changed since {@link #markClean()}; Long.MAX_VALUE if none. */
    private long dirtyFrom = Long.MAX_VALUE;
    /**
     * The last entry ends a compacted range ({@link #replaceHead} up to the end): the next batch
     * starts an entry of its own, so the cleaned part and new appends keep separate entries.
     */
    private boolean tailSealed;

    LogIndex(long endOffset) {
        this.endOffset = endOffset;
    }

    int size() {
        return tail - head;
    }

    long endOffset() {
        return endOffset;
    }

    /** Bytes of every live entry. */
    long totalBytes() {
        return totalBytes;
    }

    long base(int i) {
        return base[head + i];
    }

    long end(int i) {
        return head + i + 1 < tail ? base[head + i + 1] : endOffset;
    }

    long maxTimestamp(int i) {
        return maxTimestamp[head + i];
    }

    int bytes(int i) {
        return bytes[head + i];
    }

    /** Adds a batch at the end of the index (its base offset must be {@link #endOffset()}). */
    void add(long batchBase, int count, long batchMaxTimestamp, int batchBytes, int intervalBytes) {
        if (batchBase != endOffset) {
            throw new IllegalStateException("batch at " + batchBase + " does not follow index end " + endOffset);
        }
        if (tail > head && bytes[tail - 1] < intervalBytes && !tailSealed) {
            maxTimestamp[tail - 1] = Math.max(maxTimestamp[tail - 1], batchMaxTimestamp);
            bytes[tail - 1] += batchBytes;
            dirtyFrom = Math.min(dirtyFrom, base[tail - 1]);
        } else {
            push(batchBase, batchMaxTimestamp, batchBytes);
            dirtyFrom = Math.min(dirtyFrom, batchBase);
        }
        endOffset = batchBase + count;
        totalBytes += batchBytes;
        tailSealed = false;
    }

    private void push(long b, long ts, int size) {
        if (tail == base.length) {
            if (head > base.length / 2) {
                // Mostly trimmed: slide down instead of growing.
                int n = tail - head;
                System.arraycopy(base, head, base, 0, n);
                System.arraycopy(maxTimestamp, head, maxTimestamp, 0, n);
                System.arraycopy(bytes, head, bytes, 0, n);
                head = 0;
                tail = n;
            } else {
                base = Arrays.copyOf(base, base.length * 2);
                maxTimestamp = Arrays.copyOf(maxTimestamp, base.length);
                bytes = Arrays.copyOf(bytes, base.length);
            }
        }
        base[tail] = b;
        maxTimestamp[tail] = ts;
        bytes[tail] = size;
        tail++;
    }

    /**
     * Where retention moves the log start: past whole entries from the head, oldest first, those
     * below {@code hw} whose largest timestamp is more than {@code retentionMs} before
     * {@code nowMs}, then those the log can lose while still holding at least
     * {@code retentionBytes}; -1 disables either rule.
     *
     * @return the new log start, {@code logStart} when nothing goes
     */
    long retainedFrom(long logStart, long hw, long nowMs, long retentionMs, long retentionBytes) {
        long newStart = logStart;
        int i = 0;
        if (retentionMs >= 0) {
            while (i < size() && end(i) <= hw && nowMs - maxTimestamp(i) > retentionMs) {
                newStart = end(i++);
            }
        }
        if (retentionBytes >= 0) {
            long left = totalBytes;
            for (int j = 0; j < i; j++) {
                left -= bytes(j);
            }
            while (i < size() && end(i) <= hw && left - bytes(i) >= retentionBytes) {
                left -= bytes(i);
                newStart = end(i++);
            }
        }
        return newStart;
    }

    /** Index of the entry holding {@code offset}, or -1 if it is outside the index. */
    int entryOf(long offset) {
        if (size() == 0 || offset < base[head] || offset >= endOffset) {
            return -1;
        }
        int i = Arrays.binarySearch(base, head, tail, offset);
        return (i >= 0 ? i : -i - 2) - head;
    }

    /** Drops entries that end at or below {@code offset}. */
    void truncateHead(long offset) {
        while (tail > head && end(0) <= offset) {
            totalBytes -= bytes[head];
            head++;
        }
        if (tail == head) {
            head = 0;
            tail = 0;
            endOffset = Math.max(endOffset, offset);
        }
    }

    /**
     * Replaces the entries below {@code end} with those of {@code replacement}, which must end exactly at
     * {@code end} (a compacted range's index, built from its new batches). An entry of this index
     * holding {@code end} inside it keeps its bytes and largest timestamp and starts at
     * {@code end}: its part below was replaced, so it overstates by at most one entry until the
     * next compaction covers it. Every entry counts as changed for the next checkpoint.
     */
    void replaceHead(LogIndex replacement, long end) {
        if (replacement.endOffset != end) {
            throw new IllegalArgumentException("replacement entries end at " + replacement.endOffset + ", not " + end);
        }
        int kept = 0;
        for (int i = 0; i < size(); i++) {
            if (end(i) > end) {
                kept++;
            }
        }
        int n = replacement.size() + kept;
        long[] newBase = new long[Math.max(16, n)];
        long[] newTs = new long[newBase.length];
        int[] newBytes = new int[newBase.length];
        int j = 0;
        long total = 0;
        for (int i = 0; i < replacement.size(); i++, j++) {
            newBase[j] = replacement.base(i);
            newTs[j] = replacement.maxTimestamp(i);
            newBytes[j] = replacement.bytes(i);
            total += newBytes[j];
        }
        for (int i = 0; i < size(); i++) {
            if (end(i) > end) {
                newBase[j] = Math.max(base(i), end);
                newTs[j] = maxTimestamp(i);
                newBytes[j] = bytes(i);
                total += newBytes[j];
                j++;
            }
        }
        base = newBase;
        maxTimestamp = newTs;
        bytes = newBytes;
        head = 0;
        tail = n;
        totalBytes = total;
        tailSealed = kept == 0;
        endOffset = Math.max(endOffset, end);
        dirtyFrom = Long.MIN_VALUE;
    }

    /**
     * Makes the next batch start an entry of its own: a cleaning about to end at the index's end
     * must find an entry boundary there when it commits, though appends continue meanwhile.
     */
    void sealTail() {
        tailSealed = true;
    }

    /** First entry (from {@code from}) whose largest timestamp is at least {@code ts}, or -1. Linear. */
    int firstAtLeast(long ts, int from) {
        for (int i = from; i < size(); i++) {
            if (maxTimestamp(i) >= ts) {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first entry with the largest timestamp, or -1 when empty. */
    int entryWithMaxTimestamp() {
        int best = -1;
        for (int i = 0; i < size(); i++) {
            if (best < 0 || maxTimestamp(i) > maxTimestamp(best)) {
                best = i;
            }
        }
        return best;
    }

    /*
     * Checkpoint layout (big-endian): end offset (long), count (int), then per entry: base offset
     * (long), max timestamp (long), bytes (int).
     */

    int checkpointSize(boolean full) {
        return 8 + 4 + entriesFrom(full) * ENTRY_BYTES;
    }

    private int entriesFrom(boolean full) {
        if (full) {
            return size();
        }
        int n = 0;
        for (int i = size() - 1; i >= 0 && base(i) >= dirtyFrom; i--) {
            n++;
        }
        return n;
    }

    /** Writes every entry ({@code full}) or only those changed since the last checkpoint. */
    void writeCheckpoint(ByteBuffer out, boolean full) {
        int n = entriesFrom(full);
        out.putLong(endOffset).putInt(n);
        for (int i = size() - n; i < size(); i++) {
            out.putLong(base(i)).putLong(maxTimestamp(i)).putInt(bytes(i));
        }
    }

    void markClean() {
        dirtyFrom = Long.MAX_VALUE;
    }

    /**
     * Applies a checkpoint: a full one replaces the index; a partial one replaces the entries from
     * its first entry's base on (the last entry may have grown since it was written).
     */
    void readCheckpoint(ByteBuffer in, boolean full) {
        long end = in.getLong();
        int n = in.getInt();
        if (full) {
            head = 0;
            tail = 0;
            totalBytes = 0;
        }
        for (int i = 0; i < n; i++) {
            long b = in.getLong();
            long ts = in.getLong();
            int size = in.getInt();
            if (i == 0) {
                while (tail > head && base[tail - 1] >= b) {
                    tail--;
                    totalBytes -= bytes[tail];
                }
            }
            push(b, ts, size);
            totalBytes += size;
        }
        endOffset = end;
        markClean();
    }
}
