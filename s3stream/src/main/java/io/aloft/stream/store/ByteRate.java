package io.aloft.stream.store;

/**
 * A token bucket of bytes that may go into debt: a read is let through whenever the bucket is not
 * negative and pays for what it actually delivered afterwards, so reads never need to know their
 * size in advance and one large read is paced by the wait it causes for the next. The bucket holds
 * at most one tenth of a second of the rate (at least 1 MiB), so an idle period buys a short burst only.
 *
 * <p>Time is passed in (nanoseconds of any monotonic clock), so the pacing is exact in tests.
 * Not thread-safe: its owner ({@link CatchUpReads}) guards it.
 */
final class ByteRate {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long bytesPerSecond;
    private final long capacity;
    private double tokens;
    private long lastNanos;

    /** @param bytesPerSecond the rate; 0 or less for no limit */
    ByteRate(long bytesPerSecond, long nowNanos) {
        this.bytesPerSecond = bytesPerSecond;
        this.capacity = bytesPerSecond <= 0 ? 0 : Math.max(1L << 20, bytesPerSecond / 10);
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    boolean limited() {
        return bytesPerSecond > 0;
    }

    /** The bytes a read asking for {@code asked} may deliver: all of it, or under a limit at most the bucket. */
    long grant(long asked) {
        return limited() ? Math.min(asked, capacity) : asked;
    }

    /** Nanoseconds until a read may start: 0 now, or how long the debt takes to repay. */
    long delayNanos(long nowNanos) {
        if (!limited()) {
            return 0;
        }
        refill(nowNanos);
        if (tokens >= 0) {
            return 0;
        }
        return (long) Math.ceil(-tokens * NANOS_PER_SECOND / bytesPerSecond);
    }

    /** Charges bytes a read delivered. */
    void spend(long bytes, long nowNanos) {
        if (!limited()) {
            return;
        }
        refill(nowNanos);
        tokens -= bytes;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + (double) elapsed * bytesPerSecond / NANOS_PER_SECOND);
            lastNanos = nowNanos;
        }
    }
}
