package io.aloft.bench.wal;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * Latency percentiles of one cell in microseconds. Immutable.
 *
 * @param count operations recorded
 */
record Latency(long count, double p50Us, double p99Us, double p999Us, double maxUs) {
    /** Highest latency a histogram tracks, in nanoseconds; anything above is clamped to it. */
    static final long HIGHEST_NS = 120_000_000_000L;

    /** A histogram of nanosecond latencies, 3 significant digits. */
    static Histogram newHistogram() {
        return new Histogram(HIGHEST_NS, 3);
    }

    static Latency of(AbstractHistogram h) {
        return new Latency(h.getTotalCount(), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(99)),
                us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()));
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }
}
