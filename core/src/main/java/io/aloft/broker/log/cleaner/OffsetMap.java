package io.aloft.broker.log.cleaner;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A bounded map from record key to the offset of its latest record, over the uncleaned part of a
 * log: what a cleaning compares every record with (a record is superseded when the map holds a
 * later offset for its key). Keys are not stored, only a 128-bit MD5 hash of them, as in Kafka's
 * cleaner: 24 bytes per entry in one preallocated {@code long[]} (hash high, hash low, offset + 1;
 * 0 marks a free slot), open addressing with linear probing. Two keys sharing a 128-bit hash would
 * be taken for one; at a few million keys that chance is about 10^-26.
 *
 * <p>Capacity is fixed ({@link #slots()}); callers stop adding at {@code slots × loadFactor}
 * entries ({@link #hasRoomFor}), so probes stay short, and clean in several passes.
 *
 * <p>Not thread-safe: confined to its cleaner thread.
 */
final class OffsetMap {
    /** Bytes per slot: two longs of hash, one of offset. */
    static final int BYTES_PER_ENTRY = 24;

    private final long[] slots;
    private final int capacity;
    private final int maxEntries;
    private final MessageDigest md5;
    private final byte[] hash = new byte[16];
    private int size;
    private long lastOffset = -1;

    /**
     * @param bytes memory for the map: {@code bytes / 24} slots
     * @param loadFactor the share of slots that may be filled
     */
    OffsetMap(long bytes, double loadFactor) {
        long n = bytes / BYTES_PER_ENTRY;
        if (n < 2 || n * 3 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a key map of " + bytes + " bytes has " + n + " slots");
        }
        this.capacity = (int) n;
        this.slots = new long[capacity * 3];
        this.maxEntries = Math.max(1, (int) (capacity * loadFactor));
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }

    int slots() {
        return capacity;
    }

    int size() {
        return size;
    }

    /** Heap bytes the map holds. */
    long memoryBytes() {
        return (long) slots.length * Long.BYTES;
    }

    /** Whether {@code entries} more keys can be added without passing the load factor. */
    boolean hasRoomFor(int entries) {
        return size + (long) entries <= maxEntries;
    }

    /** The largest offset put since the last {@link #clear()}, or -1. */
    long lastOffset() {
        return lastOffset;
    }

    /**
     * Records {@code offset} as the latest of {@code key} (its bytes, position to limit; not moved).
     *
     * @throws IllegalStateException if the map is full (callers check {@link #hasRoomFor} first)
     */
    void put(ByteBuffer key, long offset) {
        digest(key);
        long hi = readLong(0);
        long lo = readLong(8);
        int i = start(lo);
        while (true) {
            int at = i * 3;
            if (slots[at + 2] == 0) {
                if (size >= capacity - 1) {
                    throw new IllegalStateException("key map full at " + size + " keys");
                }
                slots[at] = hi;
                slots[at + 1] = lo;
                slots[at + 2] = offset + 1;
                size++;
                break;
            }
            if (slots[at] == hi && slots[at + 1] == lo) {
                slots[at + 2] = offset + 1;
                break;
            }
            i = i + 1 == capacity ? 0 : i + 1;
        }
        lastOffset = Math.max(lastOffset, offset);
    }

    /** The latest offset recorded for {@code key}, or -1 if none. */
    long get(ByteBuffer key) {
        digest(key);
        long hi = readLong(0);
        long lo = readLong(8);
        int i = start(lo);
        while (true) {
            int at = i * 3;
            long stored = slots[at + 2];
            if (stored == 0) {
                return -1;
            }
            if (slots[at] == hi && slots[at + 1] == lo) {
                return stored - 1;
            }
            i = i + 1 == capacity ? 0 : i + 1;
        }
    }

    /** Empties the map for the next cleaning; the memory stays allocated. */
    void clear() {
        java.util.Arrays.fill(slots, 0L);
        size = 0;
        lastOffset = -1;
    }

    private void digest(ByteBuffer key) {
        md5.reset();
        md5.update(key.duplicate());
        try {
            md5.digest(hash, 0, 16);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    private long readLong(int from) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            v = (v << 8) | (hash[from + k] & 0xffL);
        }
        return v;
    }

    private int start(long lo) {
        return (int) Long.remainderUnsigned(lo, capacity);
    }
}
