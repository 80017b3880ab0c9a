package io.aloft.stream.store;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of prefetched blocks held for their readers ({@link ObjectFetcher}'s readahead), against
 * a budget. Bytes are reserved block by block as readahead plans a run, and come back <em>run by
 * run</em>: the blocks of a run are read with one GET into one buffer, which stays reachable until
 * the last of them is dropped. Giving bytes back block by block, as the reader passed each one,
 * undercounted by up to a run per reading stream (with 16 MiB runs, half the default budget) and
 * let new runs be read while the old buffers were still alive.
 *
 * <p>Thread-safe: reservations happen on the thread planning a run (under its stream's readahead
 * monitor), releases on reader threads and on the storage threads that fail a run's GET.
 */
final class HeldBytes {
    private final long budget;
    private final AtomicLong held = new AtomicLong();

    HeldBytes(long budget) {
        this.budget = budget;
    }

    /** Bytes reserved by runs that still have a block not released. */
    long held() {
        return held.get();
    }

    /** Bytes that may still be reserved (negative never: reservations stop at the budget). */
    long room() {
        return budget - held.get();
    }

    /** Starts an empty run; its blocks are added with {@link Run#tryAdd}. */
    Run newRun() {
        return new Run();
    }

    /** The blocks read with one GET. Blocks are added before the GET starts, released after. */
    final class Run {
        private final AtomicLong bytes = new AtomicLong();
        private final AtomicInteger unreleased = new AtomicInteger();

        private Run() {
        }

        /**
         * Reserves a block of {@code size} bytes for this run, unless that would take the held
         * bytes over the budget. Must not be called once one of the run's blocks was released.
         *
         * @return whether the block was reserved
         */
        boolean tryAdd(int size) {
            if (held.addAndGet(size) > budget) {
                held.addAndGet(-size);
                return false;
            }
            bytes.addAndGet(size);
            unreleased.incrementAndGet();
            return true;
        }

        /**
         * Drops one of the run's blocks (passed by its reader, or failed); call once per block
         * added. The last one gives the whole run's bytes back.
         */
        void release() {
            int left = unreleased.decrementAndGet();
            if (left < 0) {
                throw new IllegalStateException("a held run released more blocks than it holds");
            }
            if (left == 0) {
                held.addAndGet(-bytes.get());
            }
        }
    }
}
