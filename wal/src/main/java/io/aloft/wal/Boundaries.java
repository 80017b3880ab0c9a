package io.aloft.wal;

/**
 * Record boundaries from the scan start onward, each with the offset of the last data record
 * starting between it and the next boundary (-1 if none: padding only, or an empty open block).
 * Block starts are boundaries; so are aligned record starts found by recovery.
 *
 * <p>A trim to {@code x} may persist as scan start the first boundary whose segment still holds a
 * record at or above {@code x}: every segment before it holds only records below {@code x}, so its
 * space is released whole, even the last write's.
 *
 * <p>Not thread-safe: guarded by the writer's lock.
 */
final class Boundaries {
    private final LongDeque starts = new LongDeque();
    private final LongDeque lastRecords = new LongDeque();

    /** Adds a boundary above every existing one. */
    void add(long start) {
        if (!starts.isEmpty() && starts.peekLast() >= start) {
            return;
        }
        starts.addLast(start);
        lastRecords.addLast(-1);
    }

    /** A data record starts at {@code offset}, in the segment of the newest boundary. */
    void noteRecord(long offset) {
        lastRecords.setLast(offset);
    }

    /**
     * The scan start to persist for a trim to {@code offset}; forgets the segments before it. The
     * newest boundary is never forgotten.
     */
    long scanStartFor(long offset) {
        while (starts.size() >= 2 && lastRecords.peekFirst() < offset) {
            starts.removeFirst();
            lastRecords.removeFirst();
        }
        return starts.peekFirst();
    }

    int size() {
        return starts.size();
    }

    long start(int i) {
        return starts.get(i);
    }

    long lastRecord(int i) {
        return lastRecords.get(i);
    }
}
