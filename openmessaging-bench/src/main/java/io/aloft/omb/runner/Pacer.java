package io.aloft.omb.runner;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Spaces sends of one producer thread evenly at a fixed rate. Confined to that thread.
 *
 * <p>Message {@code i} is due at {@code start + i / rate}: an absolute schedule on
 * {@link System#nanoTime}, so time lost in one send (a slow call, a descheduled thread) is made up
 * by sending the next ones without waiting, and the long-run rate is exact rather than drifting
 * with per-message sleep overshoot. The thread parks only when it is ahead of the schedule. If it
 * falls more than {@link #MAX_LAG_NANOS} behind (say the client blocked on a full buffer), the
 * schedule restarts from now rather than bursting to catch up: the missed sends are dropped, the
 * measured publish rate shows the shortfall, and the publish-delay histogram shows the lateness.
 */
final class Pacer {
    static final long MAX_LAG_NANOS = 1_000_000_000L;
    /** Parks at most this long at a time, so a stop request is seen promptly. */
    private static final long MAX_PARK_NANOS = 50_000_000L;

    private final double intervalNanos;
    private final LongSupplier clock;
    private final BooleanSupplier stopped;
    private long startNanos = -1;
    private long count;

    /**
     * @param ratePerSecond messages per second; 0 or less means no limit
     * @param clock a nanoTime source (injected for tests)
     * @param stopped polled while waiting; when true, {@link #awaitNext} returns -1
     */
    Pacer(double ratePerSecond, LongSupplier clock, BooleanSupplier stopped) {
        this.intervalNanos = ratePerSecond > 0 ? 1e9 / ratePerSecond : 0;
        this.clock = clock;
        this.stopped = stopped;
    }

    boolean limited() {
        return intervalNanos > 0;
    }

    /**
     * Waits until the next message is due and returns the time it was due (the current time when
     * unlimited), or -1 if a stop was requested while waiting.
     */
    long awaitNext() {
        long now = clock.getAsLong();
        if (intervalNanos == 0) {
            return now;
        }
        if (startNanos < 0) {
            startNanos = now;
        }
        long due = startNanos + (long) (count * intervalNanos);
        if (now - due > MAX_LAG_NANOS) {
            startNanos = now;
            count = 0;
            due = now;
        }
        count++;
        while (now < due) {
            if (stopped.getAsBoolean()) {
                return -1;
            }
            LockSupport.parkNanos(Math.min(due - now, MAX_PARK_NANOS));
            now = clock.getAsLong();
        }
        return due;
    }
}
