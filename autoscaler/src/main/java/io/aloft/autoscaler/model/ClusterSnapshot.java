package io.aloft.autoscaler.model;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The cluster at one instant: every registered broker's load and every partition's load and broker.
 * The input of both the balancer and the scaling policies, which are pure functions of snapshots
 * (plus the clock and their own cooldown state), so they are tested on synthetic snapshots.
 *
 * <p>Immutable; brokers sorted by id and partitions by topic then partition, so that anything
 * iterating them is deterministic.
 *
 * @param timeMs wall-clock time of the later of the two scrapes the rates come from
 * @param brokers every registered broker, sorted by id
 * @param partitions every partition of every topic, internal ones included, sorted by name
 */
public record ClusterSnapshot(long timeMs, List<BrokerLoad> brokers, List<PartitionLoad> partitions) {

    public ClusterSnapshot {
        brokers = brokers.stream().sorted(Comparator.comparingInt(BrokerLoad::id)).toList();
        partitions = partitions.stream()
                .sorted(Comparator.comparing(PartitionLoad::topic).thenComparingInt(PartitionLoad::partition))
                .toList();
    }

    /** The broker with {@code id}, if registered. */
    public Optional<BrokerLoad> broker(int id) {
        return brokers.stream().filter(b -> b.id() == id).findFirst();
    }

    /** Brokers by id. */
    public Map<Integer, BrokerLoad> brokersById() {
        return brokers.stream().collect(Collectors.toMap(BrokerLoad::id, Function.identity()));
    }

    /** Partitions grouped by the broker serving them; brokers with none are absent. */
    public Map<Integer, List<PartitionLoad>> partitionsByBroker() {
        return partitions.stream().collect(Collectors.groupingBy(PartitionLoad::broker));
    }

    /** Sum of the brokers' ingress, bytes per second (NaN rates count as 0). */
    public double totalBytesInPerSec() {
        return brokers.stream().mapToDouble(b -> Double.isNaN(b.bytesInPerSec()) ? 0 : b.bytesInPerSec()).sum();
    }
}
