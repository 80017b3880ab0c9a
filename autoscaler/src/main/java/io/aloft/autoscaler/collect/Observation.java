package io.aloft.autoscaler.collect;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one round of {@link SnapshotCollector} read, before any rate is computed: the registered
 * brokers and their scrapes, each partition's leader and log-end offset. Two of these make a
 * {@link io.aloft.autoscaler.model.ClusterSnapshot} ({@link LoadEstimator}).
 *
 * <p>Immutable (its maps are copied into sorted, unmodifiable ones).
 *
 * @param timeMs wall-clock time of the scrapes
 * @param nanos {@link System#nanoTime()} of the scrapes, the base of every rate
 * @param brokers registered brokers by id
 * @param leaders partition to the id of the broker leading it; partitions without a leader are absent
 * @param endOffsets partition to its log-end offset; absent where ListOffsets failed
 */
record Observation(long timeMs, long nanos, Map<Integer, BrokerObservation> brokers,
        Map<PartitionKey, Integer> leaders, Map<PartitionKey, Long> endOffsets) {

    Observation {
        brokers = java.util.Collections.unmodifiableMap(new TreeMap<>(brokers));
        leaders = java.util.Collections.unmodifiableMap(new TreeMap<>(leaders));
        endOffsets = java.util.Collections.unmodifiableMap(new TreeMap<>(endOffsets));
    }

    /**
     * One broker in one round.
     *
     * @param id its node id
     * @param rack its {@code broker.rack} as describeCluster tells it
     * @param metricsUrl the base URL scraped
     * @param metrics its parsed {@code /metrics}, or null when the scrape failed
     * @param error why the scrape failed, or null
     * @param ready whether {@code /readyz} answered 200
     */
    record BrokerObservation(int id, Optional<String> rack, URI metricsUrl, PrometheusText metrics, String error,
            boolean ready) {
    }

    /** A partition, sortable by topic then index (Kafka's TopicPartition is not Comparable). */
    record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {
        @Override
        public int compareTo(PartitionKey o) {
            int c = topic.compareTo(o.topic);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }
}
