package io.aloft.broker.log.cleaner;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps the bytes the cleaner threads read and write together under a rate
 * ({@code log.cleaner.io.max.bytes.per.second}): each thread reports what it moved and is made to
 * wait when the total runs ahead of the rate since the throttler started measuring. The measuring
 * window restarts after each second, so a pause does not bank credit for a burst.
 *
 * <p>Thread-safe.
 */
final class Throttler {
    /** Waits the calling thread; injected so tests need not wait. */
    interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final double bytesPerSecond;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private long windowStart;
    private double windowBytes;

    Throttler(double bytesPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
        this.bytesPerSecond = bytesPerSecond;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
        this.windowStart = nanoTime.getAsLong();
    }

    static Throttler of(double bytesPerSecond) {
        return new Throttler(bytesPerSecond, System::nanoTime, nanos -> TimeUnit.NANOSECONDS.sleep(nanos));
    }

    boolean unlimited() {
        return bytesPerSecond >= Double.MAX_VALUE;
    }

    /** Accounts {@code bytes} and waits as long as the rate requires. */
    void acquire(long bytes) throws InterruptedException {
        if (unlimited() || bytes <= 0) {
            return;
        }
        long wait;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            if (now - windowStart > WINDOW_NANOS) {
                windowStart = now;
                windowBytes = 0;
            }
            windowBytes += bytes;
            long due = windowStart + (long) (windowBytes / bytesPerSecond * 1e9);
            wait = due - now;
        }
        if (wait > 0) {
            sleeper.sleepNanos(wait);
        }
    }
}
