package io.aloft.autoscaler.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Rates on hand-made counters and histograms: the arithmetic Prometheus' rate() and histogram_quantile() define. */
class RatesTest {

    private static NavigableMap<Double, Double> hist(double... boundAndCount) {
        NavigableMap<Double, Double> out = new TreeMap<>();
        for (int i = 0; i < boundAndCount.length; i += 2) {
            out.put(boundAndCount[i], boundAndCount[i + 1]);
        }
        return out;
    }

    private static final double INF = Double.POSITIVE_INFINITY;

    @Test
    void counterRate_increase_perSecond() {
        assertEquals(50.0, Rates.counterRate(100, 600, 10));
    }

    @Test
    void counterRate_reset_countsTheNewValueOnly() {
        // The broker restarted: 10_000 before, 300 since its restart.
        assertEquals(30.0, Rates.counterRate(10_000, 300, 10));
    }

    @Test
    void counterRate_seriesNewSinceLastScrape_countsFromZero() {
        assertEquals(7.0, Rates.counterRate(Double.NaN, 70, 10));
    }

    @Test
    void counterRate_missingNowOrEmptyInterval_nan() {
        assertTrue(Double.isNaN(Rates.counterRate(5, Double.NaN, 10)));
        assertTrue(Double.isNaN(Rates.counterRate(5, 6, 0)));
    }

    @Test
    void quantile_interpolatesInsideTheBucketOfTheDeltas() {
        // Before: 100 observations all <= 0.1. Interval: 0 more <= 0.1, 100 in (0.1, 0.2], 100 in (0.2, 0.4].
        NavigableMap<Double, Double> before = hist(0.1, 100, 0.2, 100, 0.4, 100, INF, 100);
        NavigableMap<Double, Double> now = hist(0.1, 100, 0.2, 200, 0.4, 300, INF, 300);
        // Rank 0.99 * 200 = 198: the 98th of 100 in (0.2, 0.4].
        assertEquals(0.2 + 0.2 * 98 / 100, Rates.quantile(0.99, before, now), 1e-12);
        // Rank 0.5 * 200 = 100: the last of (0.1, 0.2].
        assertEquals(0.2, Rates.quantile(0.5, before, now), 1e-12);
    }

    @Test
    void quantile_lowestBucketStartsAtZero() {
        assertEquals(0.05, Rates.quantile(0.5, hist(), hist(0.1, 10, INF, 10)), 1e-12);
    }

    @Test
    void quantile_inTheInfBucket_highestFiniteBound() {
        assertEquals(0.4, Rates.quantile(0.99, hist(0.4, 0, INF, 0), hist(0.4, 1, INF, 100)), 1e-12);
    }

    @Test
    void quantile_reset_usesTheCurrentCounts() {
        NavigableMap<Double, Double> before = hist(0.1, 1000, 1.0, 1000, INF, 1000);
        NavigableMap<Double, Double> now = hist(0.1, 0, 1.0, 10, INF, 10);
        assertEquals(0.1 + 0.9 * 9.9 / 10, Rates.quantile(0.99, before, now), 1e-12);
    }

    @Test
    void quantile_nothingObservedOrNoHistogram_nan() {
        NavigableMap<Double, Double> h = hist(0.1, 5, INF, 5);
        assertTrue(Double.isNaN(Rates.quantile(0.99, h, h)));
        assertTrue(Double.isNaN(Rates.quantile(0.99, h, hist())));
    }

    @Test
    void buckets_sumsMatchingSeriesByBound() {
        PrometheusText p = PrometheusText.parse("""
                h_bucket{request="Produce",le="0.5"} 1
                h_bucket{request="Produce",le="+Inf"} 4
                h_bucket{request="Fetch",le="0.5"} 9
                h_bucket{request="Produce",le="bad"} 9
                """);
        assertEquals(hist(0.5, 1, INF, 4), Rates.buckets(p, "h_bucket", Map.of("request", "Produce")));
    }
}
