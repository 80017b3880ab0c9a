package io.aloft.wal;

import io.aloft.wal.format.RecordFormat;
import io.aloft.wal.format.WalHeader;

/**
 * Maps ever-growing logical offsets onto the ring that follows the two header slots, and holds
 * the alignment arithmetic shared by writer and scanner. Immutable.
 */
record Ring(long base, long size) {
    static final int ALIGNMENT = WalConfig.ALIGNMENT;

    static Ring forCapacity(long capacity) {
        long base = (long) WalHeader.SLOT_COUNT * WalHeader.SLOT_SIZE;
        return new Ring(base, capacity - base);
    }

    /** Device position of a logical offset. */
    long position(long logical) {
        return base + Math.floorMod(logical, size);
    }

    /** Bytes from a logical offset to the end of the ring (to the next lap's start). */
    long roomToEnd(long logical) {
        return size - Math.floorMod(logical, size);
    }

    static long alignDown(long x) {
        return x - Math.floorMod(x, ALIGNMENT);
    }

    static long alignUp(long x) {
        return alignDown(x + ALIGNMENT - 1);
    }

    /**
     * Length of a write holding {@code used} bytes of records, grown to the next 4 KiB boundary;
     * when the gap is too small for a padding header the write takes one more 4 KiB block.
     */
    static long padded(long used) {
        long up = alignUp(used);
        long gap = up - used;
        if (gap == 0) {
            return used;
        }
        return gap < RecordFormat.HEADER_SIZE ? up + ALIGNMENT : up;
    }

    /** Largest record body the ring can ever take: a padded record may use at most half of it. */
    long maxRecordBody() {
        return Math.min(Integer.MAX_VALUE - 2L * ALIGNMENT, size / 2 - ALIGNMENT - RecordFormat.HEADER_SIZE);
    }
}
