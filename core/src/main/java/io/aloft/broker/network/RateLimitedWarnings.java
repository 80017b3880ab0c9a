package io.aloft.broker.network;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * WARN lines of one family (bad requests, refused connections) under a token bucket, broker-wide:
 * up to {@code burst} lines at once, then one per {@code refillNanos}. A line over the limit is
 * counted by kind instead, and {@link #flushSuppressed()} (called periodically) logs one
 * "suppressed N" line with the counts per kind: a client that floods the broker with garbage costs
 * a few lines a minute, not one per frame, and the operator still learns how much was dropped.
 *
 * <p>Thread-safe: the bucket and counts are guarded by {@code this}; logging happens outside it.
 */
final class RateLimitedWarnings {
    private final Logger log;
    private final String family;
    private final int burst;
    private final long refillNanos;
    private final LongSupplier nanoTime;

    /** Guarded by this. */
    private double tokens;
    /** Guarded by this. */
    private long lastRefill;
    /** Guarded by this: suppressed lines per kind since the last summary. */
    private final Map<String, Long> suppressed = new TreeMap<>();
    /** Guarded by this: when the current summary period started. */
    private long periodStart;

    /**
     * @param family what the lines are about, for the summary ("bad requests")
     * @param burst lines logged at once before the limit applies
     * @param refillNanos one more line allowed per this much time
     * @param nanoTime the clock ({@code System::nanoTime}; tests pass their own)
     */
    RateLimitedWarnings(Logger log, String family, int burst, long refillNanos, LongSupplier nanoTime) {
        if (burst < 1 || refillNanos < 1) {
            throw new IllegalArgumentException("burst and refill must be positive");
        }
        this.log = log;
        this.family = family;
        this.burst = burst;
        this.refillNanos = refillNanos;
        this.nanoTime = nanoTime;
        this.tokens = burst;
        this.lastRefill = nanoTime.getAsLong();
        this.periodStart = lastRefill;
    }

    /** Logs {@code format}/{@code args} as WARN if the bucket allows, else counts it under {@code kind}. */
    void warn(String kind, String format, Object... args) {
        if (tryAcquire(kind)) {
            log.warn(format, args);
        }
    }

    /** Whether a line may be logged now; if not, it is counted as suppressed under {@code kind}. */
    synchronized boolean tryAcquire(String kind) {
        long now = nanoTime.getAsLong();
        tokens = Math.min(burst, tokens + (double) (now - lastRefill) / refillNanos);
        lastRefill = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        suppressed.merge(kind, 1L, Long::sum);
        return false;
    }

    /** Logs how many lines were suppressed since the last call, by kind; nothing if none were. */
    void flushSuppressed() {
        Map<String, Long> counts;
        long seconds;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            seconds = TimeUnit.NANOSECONDS.toSeconds(now - periodStart + TimeUnit.SECONDS.toNanos(1) - 1); // rounded up
            periodStart = now;
            if (suppressed.isEmpty()) {
                return;
            }
            counts = new TreeMap<>(suppressed);
            suppressed.clear();
        }
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        log.warn("Suppressed {} warnings about {} in the last {} s (by kind: {})", total, family, seconds, counts);
    }

    /** Lines counted and not yet summarized (for tests). */
    synchronized long pendingSuppressed() {
        return suppressed.values().stream().mapToLong(Long::longValue).sum();
    }
}
