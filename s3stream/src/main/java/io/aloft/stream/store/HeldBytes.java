package io.aloft.stream.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of prefetched blocks held for their readers ({@link ObjectFetcher}'s readahead), against
 * a budget. Reserved block by block as readahead plans a GET, given back block by block as the
 * reader passes each one (or its load fails, or the reader jumps away): a block read with a
 * multi-block GET owns an array of exactly its size ({@code ObjectStorage.getParts}), so a
 * passed block's bytes are free even while later blocks of the same GET are still held.
 *
 * <p>Thread-safe: reservations happen on the thread planning readahead, releases on reader
 * threads and on the storage threads that fail a GET.
 */
final class HeldBytes {
    private final long budget;
    private final AtomicLong held = new AtomicLong();

    HeldBytes(long budget) {
        this.budget = budget;
    }

    /** Bytes reserved and not yet released. */
    long held() {
        return held.get();
    }

    /** Bytes that may still be reserved (never negative: reservations stop at the budget). */
    long room() {
        return budget - held.get();
    }

    /**
     * Reserves a block of {@code size} bytes, unless that would take the held bytes over the
     * budget.
     *
     * @return whether the block was reserved
     */
    boolean tryReserve(int size) {
        if (held.addAndGet(size) > budget) {
            held.addAndGet(-size);
            return false;
        }
        return true;
    }

    /** Gives back a block reserved with {@link #tryReserve}; call once per reservation. */
    void release(int size) {
        if (held.addAndGet(-size) < 0) {
            throw new IllegalStateException("held bytes released more than reserved");
        }
    }
}
