package io.aloft.autoscaler.collect;

import io.aloft.autoscaler.collect.Observation.BrokerObservation;
import io.aloft.autoscaler.collect.Observation.PartitionKey;
import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns two {@link Observation}s into a {@link ClusterSnapshot}: broker rates from the all-topics
 * series ({@code topic=""}) of counters, p99s from histogram bucket deltas, gauges as last read, and
 * per-partition byte rates estimated from per-topic counters. Brokers export no per-partition byte
 * meters, so a topic's bytes-in rate on a broker is shared over the topic's partitions that broker
 * leads in proportion to their log-end-offset growth (records, not bytes: a fair split when the
 * partitions' record sizes are alike), equally when none grew; its bytes-out rate is shared in
 * proportion to the partitions' bytes-in shares, equally when the topic had no ingress there.
 *
 * <p>A broker whose current scrape failed gets NaN rates and {@code ready=false}; one with no
 * earlier scrape (new, or failed last time) gets NaN rates and its gauges. Partitions without a
 * leader (mid-move, or their broker gone) are left out of the snapshot.
 *
 * <p>Stateless; pure functions of the observations.
 */
final class LoadEstimator {
    static final String BYTES_IN = "kafka_server_brokertopicmetrics_bytesin_total";
    static final String BYTES_OUT = "kafka_server_brokertopicmetrics_bytesout_total";
    static final String PRODUCE_TIME_BUCKET = "kafka_network_requestmetrics_totaltime_seconds_bucket";
    static final String WAL_APPEND_BUCKET = "aloft_wal_append_latency_seconds_bucket";
    static final String WAL_FULL_WAITS = "aloft_wal_full_waits_total";
    static final String WAL_USED = "aloft_wal_used_bytes";
    static final String WAL_CAPACITY = "aloft_wal_capacity_bytes";
    static final String CPU = "process_cpu_usage";
    private static final Map<String, String> ALL_TOPICS = Map.of("topic", "");
    private static final Map<String, String> PRODUCE = Map.of("request", "Produce");

    private LoadEstimator() {
    }

    static ClusterSnapshot estimate(Observation previous, Observation current) {
        double seconds = (current.nanos() - previous.nanos()) / 1e9;
        List<BrokerLoad> brokers = new ArrayList<>();
        for (BrokerObservation b : current.brokers().values()) {
            brokers.add(broker(previous.brokers().get(b.id()), b, seconds));
        }
        return new ClusterSnapshot(current.timeMs(), brokers, partitions(previous, current, seconds));
    }

    private static BrokerLoad broker(BrokerObservation before, BrokerObservation now, double seconds) {
        PrometheusText cur = now.metrics();
        if (cur == null) {
            return new BrokerLoad(now.id(), now.rack(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, false);
        }
        PrometheusText prev = before == null ? null : before.metrics();
        double used = cur.sum(WAL_USED, Map.of());
        double capacity = cur.sum(WAL_CAPACITY, Map.of());
        return new BrokerLoad(now.id(), now.rack(),
                rate(prev, cur, BYTES_IN, ALL_TOPICS, seconds),
                rate(prev, cur, BYTES_OUT, ALL_TOPICS, seconds),
                cur.sum(CPU, Map.of()),
                p99(prev, cur, WAL_APPEND_BUCKET, Map.of()),
                p99(prev, cur, PRODUCE_TIME_BUCKET, PRODUCE),
                rate(prev, cur, WAL_FULL_WAITS, Map.of(), seconds),
                capacity > 0 ? used / capacity : Double.NaN,
                now.ready());
    }

    /** A counter's rate; NaN without an earlier scrape or when the current one lacks the series. */
    private static double rate(PrometheusText prev, PrometheusText cur, String name, Map<String, String> labels,
            double seconds) {
        if (prev == null) {
            return Double.NaN;
        }
        return Rates.counterRate(prev.sum(name, labels), cur.sum(name, labels), seconds);
    }

    private static double p99(PrometheusText prev, PrometheusText cur, String bucket, Map<String, String> labels) {
        if (prev == null) {
            return Double.NaN;
        }
        return Rates.quantile(0.99, Rates.buckets(prev, bucket, labels), Rates.buckets(cur, bucket, labels));
    }

    private static List<PartitionLoad> partitions(Observation previous, Observation current, double seconds) {
        // Broker -> topic -> partitions it leads now, sorted.
        Map<Integer, Map<String, List<PartitionKey>>> led = new TreeMap<>();
        current.leaders().forEach((p, broker) -> led.computeIfAbsent(broker, b -> new TreeMap<>())
                .computeIfAbsent(p.topic(), t -> new ArrayList<>()).add(p));
        List<PartitionLoad> out = new ArrayList<>();
        led.forEach((broker, topics) -> {
            BrokerObservation now = current.brokers().get(broker);
            BrokerObservation before = previous.brokers().get(broker);
            PrometheusText cur = now == null ? null : now.metrics();
            PrometheusText prev = before == null ? null : before.metrics();
            topics.forEach((topic, parts) -> {
                Map<String, String> labels = Map.of("topic", topic);
                double in = topicRate(prev, cur, BYTES_IN, labels, seconds);
                double outRate = topicRate(prev, cur, BYTES_OUT, labels, seconds);
                double[] inShares = shares(growth(previous, current, parts));
                double[] outShares = in > 0 ? inShares : shares(new double[parts.size()]);
                for (int i = 0; i < parts.size(); i++) {
                    PartitionKey p = parts.get(i);
                    out.add(new PartitionLoad(p.topic(), p.partition(), broker, in * inShares[i],
                            outRate * outShares[i]));
                }
            });
        });
        return out;
    }

    /**
     * A topic's rate on one broker: NaN when either scrape is missing (unknown), 0 when the broker
     * has no series for the topic (nothing produced or fetched there yet; also a topic beyond the
     * broker's {@code aloft.metrics.topic.series.max}, which the estimate then misses).
     */
    private static double topicRate(PrometheusText prev, PrometheusText cur, String name, Map<String, String> labels,
            double seconds) {
        if (prev == null || cur == null) {
            return Double.NaN;
        }
        double r = Rates.counterRate(prev.sum(name, labels), cur.sum(name, labels), seconds);
        return Double.isNaN(r) ? 0 : r;
    }

    /** Each partition's log-end-offset growth; 0 where an offset is missing or went back. */
    private static double[] growth(Observation previous, Observation current, List<PartitionKey> parts) {
        double[] g = new double[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            Long before = previous.endOffsets().get(parts.get(i));
            Long now = current.endOffsets().get(parts.get(i));
            g[i] = before == null || now == null ? 0 : Math.max(0, now - before);
        }
        return g;
    }

    /** Weights normalized to sum 1; equal when they sum to 0. */
    static double[] shares(double[] weights) {
        double total = 0;
        for (double w : weights) {
            total += w;
        }
        double[] out = new double[weights.length];
        for (int i = 0; i < weights.length; i++) {
            out[i] = total > 0 ? weights[i] / total : 1.0 / weights.length;
        }
        return out;
    }
}
