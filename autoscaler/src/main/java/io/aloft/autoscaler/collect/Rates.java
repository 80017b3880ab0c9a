package io.aloft.autoscaler.collect;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Rates and quantiles from two scrapes of monotonic counters and cumulative histograms, as
 * Prometheus' {@code rate()} and {@code histogram_quantile()} compute them, including their answer
 * to a counter reset (the broker restarted between the scrapes): the new value counts from zero,
 * so a rate is never negative.
 *
 * <p>Stateless; static functions only.
 */
final class Rates {

    private Rates() {
    }

    /**
     * Per-second increase of a counter from {@code previous} to {@code current} over {@code seconds}.
     * A counter that went down was reset, and its new value is the whole increase. A counter absent
     * from the earlier scrape (NaN {@code previous}; the series appeared in between) counts from 0.
     * NaN when {@code current} is NaN (not served) or the interval is not positive.
     */
    static double counterRate(double previous, double current, double seconds) {
        if (Double.isNaN(current) || !(seconds > 0)) {
            return Double.NaN;
        }
        double increase = Double.isNaN(previous) || current < previous ? current : current - previous;
        return Math.max(0, increase) / seconds;
    }

    /**
     * A histogram's cumulative bucket counts by upper bound ({@code le}), summed over every sample
     * named {@code bucketName} carrying {@code labels} (further labels are aggregated over).
     */
    static NavigableMap<Double, Double> buckets(PrometheusText scrape, String bucketName, Map<String, String> labels) {
        NavigableMap<Double, Double> out = new TreeMap<>();
        for (PrometheusText.Sample s : scrape.samples(bucketName)) {
            String le = s.label("le");
            if (le == null || !PrometheusText.matches(s, labels)) {
                continue;
            }
            double bound;
            try {
                bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            } catch (NumberFormatException e) {
                continue; // not a bucket bound: ignore the sample rather than the histogram
            }
            out.merge(bound, s.value(), Double::sum);
        }
        return out;
    }

    /**
     * Quantile {@code q} of the observations made between two scrapes of a histogram (cumulative
     * counts by bound, as {@link #buckets} returns), with linear interpolation inside the bucket it
     * falls in; the lowest bucket starts at 0. Falling in the {@code +Inf} bucket answers the highest
     * finite bound (the histogram knows no more). When the total count went down, the histogram was
     * reset and the current counts are the interval's. NaN when nothing was observed or the current
     * histogram is missing; an empty previous histogram counts as zeros.
     */
    static double quantile(double q, NavigableMap<Double, Double> previous, NavigableMap<Double, Double> current) {
        if (current.isEmpty()) {
            return Double.NaN;
        }
        boolean reset = total(current) < total(previous);
        NavigableMap<Double, Double> delta = new TreeMap<>();
        double running = 0;
        for (Map.Entry<Double, Double> e : current.entrySet()) {
            double d = reset ? e.getValue() : e.getValue() - previous.getOrDefault(e.getKey(), 0.0);
            // Cumulative counts must not fall with the bound; clamp what a torn scrape might show.
            running = Math.max(running, Math.max(0, d));
            delta.put(e.getKey(), running);
        }
        double count = delta.lastEntry().getValue();
        if (!(count > 0)) {
            return Double.NaN;
        }
        double rank = q * count;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> e : delta.entrySet()) {
            double bound = e.getKey();
            double cumulative = e.getValue();
            if (cumulative >= rank) {
                if (Double.isInfinite(bound)) {
                    return lowerBound;
                }
                double inBucket = cumulative - lowerCount;
                if (inBucket <= 0) {
                    return bound;
                }
                return lowerBound + (bound - lowerBound) * (rank - lowerCount) / inBucket;
            }
            lowerBound = Double.isInfinite(bound) ? lowerBound : bound;
            lowerCount = cumulative;
        }
        return lowerBound;
    }

    private static double total(NavigableMap<Double, Double> buckets) {
        return buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
    }
}
