package io.aloft.bench.cluster;

import java.util.Arrays;

/** Percentiles of a few samples (nearest rank: with 10 samples p99 is the largest). Stateless. */
public final class Stats {
    private Stats() {
    }

    /** The nearest-rank {@code p}th percentile of {@code samples}; NaN when there are none. */
    public static double percentile(double[] samples, double p) {
        if (samples.length == 0) {
            return Double.NaN;
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
