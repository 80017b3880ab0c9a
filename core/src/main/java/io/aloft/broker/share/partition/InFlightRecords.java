package io.aloft.broker.share.partition;

import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The in-flight window of one share partition: the state, delivery count and acquisition lock of
 * every offset from the share-partition start offset (SPSO, {@link #start()}) up to the end offset
 * (SPEO, {@link #end()}, exclusive). Offsets below the start are done (acknowledged or archived);
 * offsets at or above the end have never been delivered.
 *
 * <p>Kept per offset in a ring buffer: the window is bounded by
 * {@code share.partition.max.record.locks} (at most a few thousand offsets), so per-offset arrays
 * are small, and advancing the start is O(1) per offset.
 *
 * <p>Not thread-safe: guarded by the lock of its {@link SharePartition}.
 */
final class InFlightRecords {
    static final byte AVAILABLE = StateBatch.AVAILABLE;
    static final byte ACQUIRED = StateBatch.ACQUIRED;
    static final byte ACKNOWLEDGED = StateBatch.ACKNOWLEDGED;
    static final byte ARCHIVED = StateBatch.ARCHIVED;

    private long start;
    private int size;
    private int head;
    private byte[] states = new byte[16];
    private short[] counts = new short[16];
    private AcquisitionLock[] locks = new AcquisitionLock[16];

    InFlightRecords(long start) {
        this.start = start;
    }

    /** The share-partition start offset (SPSO). */
    long start() {
        return start;
    }

    /** The share-partition end offset (SPEO): the next offset never delivered. */
    long end() {
        return start + size;
    }

    int size() {
        return size;
    }

    boolean contains(long offset) {
        return offset >= start && offset < start + size;
    }

    private int slot(long offset) {
        return (int) ((head + (offset - start)) & (states.length - 1));
    }

    byte state(long offset) {
        return states[slot(offset)];
    }

    short count(long offset) {
        return counts[slot(offset)];
    }

    AcquisitionLock lock(long offset) {
        return locks[slot(offset)];
    }

    void set(long offset, byte state, short count, AcquisitionLock lock) {
        int s = slot(offset);
        states[s] = state;
        counts[s] = count;
        locks[s] = lock;
    }

    /** Adds {@code end()} to the window. */
    void append(byte state, short count, AcquisitionLock lock) {
        if (size == states.length) {
            grow();
        }
        size++;
        set(end() - 1, state, count, lock);
    }

    private void grow() {
        int n = states.length;
        byte[] s = new byte[n * 2];
        short[] c = new short[n * 2];
        AcquisitionLock[] l = new AcquisitionLock[n * 2];
        for (int i = 0; i < size; i++) {
            int from = (head + i) & (n - 1);
            s[i] = states[from];
            c[i] = counts[from];
            l[i] = locks[from];
        }
        states = s;
        counts = c;
        locks = l;
        head = 0;
    }

    /** Moves the start past the leading run of ACKNOWLEDGED and ARCHIVED offsets; whether it moved. */
    boolean advanceStart() {
        long before = start;
        while (size > 0) {
            byte st = states[head];
            if (st != ACKNOWLEDGED && st != ARCHIVED) {
                break;
            }
            locks[head] = null;
            head = (head + 1) & (states.length - 1);
            size--;
            start++;
        }
        return start != before;
    }

    /**
     * Forgets every offset below {@code offset} (the log no longer has them) and moves the start
     * there; the window starts empty there if it ended below. Returns the locks that held dropped offsets.
     */
    List<AcquisitionLock> dropBelow(long offset) {
        List<AcquisitionLock> dropped = new ArrayList<>();
        while (size > 0 && start < offset) {
            if (locks[head] != null) {
                dropped.add(locks[head]);
                locks[head] = null;
            }
            head = (head + 1) & (states.length - 1);
            size--;
            start++;
        }
        if (size == 0 && start < offset) {
            start = offset;
        }
        return dropped;
    }

    /** The first AVAILABLE offset, or -1. */
    long firstAvailable() {
        for (int i = 0; i < size; i++) {
            if (states[(head + i) & (states.length - 1)] == AVAILABLE) {
                return start + i;
            }
        }
        return -1;
    }

    /** Offsets acknowledged or archived at or above the start (ReadShareGroupStateSummary's count). */
    int deliveryCompleteCount() {
        int n = 0;
        for (int i = 0; i < size; i++) {
            byte st = states[(head + i) & (states.length - 1)];
            if (st == ACKNOWLEDGED || st == ARCHIVED) {
                n++;
            }
        }
        return n;
    }

    /**
     * The states of offsets {@code from..to} (clipped to the window) as stored: runs of one state
     * and delivery count, an acquired offset written as AVAILABLE with its count (a stored
     * acquisition would outlive its lock; a restart must deliver it again, counting this delivery).
     */
    List<StateBatch> stored(long from, long to) {
        long first = Math.max(from, start);
        long last = Math.min(to, end() - 1);
        List<StateBatch> out = new ArrayList<>();
        long runStart = -1;
        byte runState = 0;
        short runCount = 0;
        for (long o = first; o <= last; o++) {
            byte st = state(o) == ACQUIRED ? AVAILABLE : state(o);
            short c = count(o);
            if (runStart >= 0 && (st != runState || c != runCount)) {
                out.add(new StateBatch(runStart, o - 1, runState, runCount));
                runStart = -1;
            }
            if (runStart < 0) {
                runStart = o;
                runState = st;
                runCount = c;
            }
        }
        if (runStart >= 0) {
            out.add(new StateBatch(runStart, last, runState, runCount));
        }
        return out;
    }

    /**
     * Fills the window from stored state: offsets from the start up to the last batch's end get
     * the batches' states (AVAILABLE with count 0 where no batch says otherwise).
     */
    void load(List<StateBatch> batches) {
        for (StateBatch b : batches) {
            if (b.lastOffset() < start) {
                continue;
            }
            while (end() <= b.lastOffset()) {
                append(AVAILABLE, (short) 0, null);
            }
            byte st = b.deliveryState() == ACKNOWLEDGED || b.deliveryState() == ARCHIVED ? b.deliveryState()
                    : AVAILABLE;
            for (long o = Math.max(b.firstOffset(), start); o <= b.lastOffset(); o++) {
                set(o, st, b.deliveryCount(), null);
            }
        }
        advanceStart();
    }

    @Override
    public String toString() {
        return "InFlightRecords(" + start + ".." + end() + ", " + Arrays.toString(stored(start, end() - 1).toArray())
                + ")";
    }
}
