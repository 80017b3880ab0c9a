package io.aloft.broker.quota;

/**
 * A rate measured over {@code samples} windows of {@code windowMs} each, as Kafka's sampled
 * {@code Rate}: values are added to the current window; a window older than all of them together
 * no longer counts; the rate is the sum of the windows that count divided by the time they cover,
 * taken as at least {@code samples - 1} whole windows (so a client's first burst is measured as if
 * spread over that time, not as an infinite rate).
 *
 * <p>Thread-safe (methods synchronize on this object; one instance per client being measured).
 */
final class SampledRate {
    private final int samples;
    private final long windowMs;
    /** Start of each window (ms); Long.MIN_VALUE: never used. */
    private final long[] starts;
    private final double[] values;
    private int current;
    /** When a value was last recorded (ms), for expiring idle rates. */
    private volatile long lastRecordMs;

    SampledRate(int samples, long windowMs, long nowMs) {
        if (samples < 2 || windowMs < 1) {
            throw new IllegalArgumentException("samples " + samples + ", window " + windowMs + " ms");
        }
        this.samples = samples;
        this.windowMs = windowMs;
        this.starts = new long[samples];
        this.values = new double[samples];
        java.util.Arrays.fill(starts, Long.MIN_VALUE);
        starts[0] = nowMs;
        lastRecordMs = nowMs;
    }

    /** Adds {@code value} at {@code nowMs} and returns the rate per second afterwards. */
    synchronized double record(double value, long nowMs) {
        if (nowMs >= starts[current] + windowMs) {
            current = (current + 1) % samples;
            starts[current] = nowMs;
            values[current] = 0;
        }
        values[current] += value;
        lastRecordMs = nowMs;
        return rate(nowMs);
    }

    /** The rate per second at {@code nowMs}. */
    synchronized double rate(long nowMs) {
        return total(nowMs) * 1000.0 / measuredMs(nowMs);
    }

    /** The time the rate is taken over at {@code nowMs} (ms), as Kafka's {@code Rate.windowSize}. */
    synchronized long measuredMs(long nowMs) {
        long oldest = nowMs;
        long expiry = nowMs - samples * windowMs;
        for (int i = 0; i < samples; i++) {
            if (starts[i] != Long.MIN_VALUE && starts[i] >= expiry && starts[i] < oldest) {
                oldest = starts[i];
            }
        }
        long elapsed = nowMs - oldest;
        long fullWindows = elapsed / windowMs;
        if (fullWindows < samples - 1) {
            elapsed += (samples - 1 - fullWindows) * windowMs;
        }
        return Math.max(elapsed, 1);
    }

    private double total(long nowMs) {
        long expiry = nowMs - samples * windowMs;
        double sum = 0;
        for (int i = 0; i < samples; i++) {
            if (starts[i] != Long.MIN_VALUE && starts[i] >= expiry) {
                sum += values[i];
            }
        }
        return sum;
    }

    long lastRecordMs() {
        return lastRecordMs;
    }
}
