package io.aloft.controller.state;

import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Chooses the broker for a partition that needs one: a new partition, or one whose broker is
 * fenced, draining or gone. Each partition has a single replica (its data is on shared storage),
 * so {@code broker.rack} cannot mean "replicas on different racks" as in Kafka; it means the next
 * best thing: <b>a topic's partitions spread evenly over racks</b>, so losing a rack (a zone) takes
 * an even share of every topic rather than all of one, and a broker's partitions leaving it go to
 * its own rack first when that keeps the spread (which it does when the rack has another broker:
 * the leaving partition's rack is then the one short of it).
 *
 * <p>The rule, applied to each partition in turn: among {@link BrokerState#ACTIVE} brokers, the one
 * whose rack holds the fewest of this topic's partitions, then the one serving the fewest
 * partitions overall, then the lowest id. Brokers without a rack form one rack of their own. With
 * no rack set anywhere (or below the feature level that introduced racks) this is simply the
 * least-loaded broker, lowest id on ties.
 *
 * <p>One instance serves one command: it counts the load once and keeps it current as it places.
 * Not thread-safe: confined to the state machine's apply thread.
 */
final class Placement {
    private static final String NO_RACK = "";

    /** Partitions per active broker, in ascending id order (ties go to the lowest id). */
    private final TreeMap<Integer, Integer> load = new TreeMap<>();
    private final Map<Integer, String> racks = new HashMap<>();

    private Placement() {
    }

    /** @param rackAware whether racks count (see {@link io.aloft.controller.model.FeatureLevel#RACK_AWARE_PLACEMENT}) */
    static Placement of(Collection<BrokerInfo> brokers, Collection<TopicInfo> topics, boolean rackAware) {
        Placement placement = new Placement();
        for (BrokerInfo b : brokers) {
            if (b.state() == BrokerState.ACTIVE) {
                placement.load.put(b.brokerId(), 0);
                placement.racks.put(b.brokerId(), b.rack() == null || !rackAware ? NO_RACK : b.rack());
            }
        }
        for (TopicInfo t : topics) {
            for (PartitionInfo p : t.partitions()) {
                placement.load.computeIfPresent(p.brokerId(), (k, v) -> v + 1);
            }
        }
        return placement;
    }

    boolean hasActiveBroker() {
        return !load.isEmpty();
    }

    /** A topic's partitions per rack, over the partitions it already has on active brokers. */
    Spread spread(List<PartitionInfo> partitions) {
        Spread spread = new Spread();
        for (PartitionInfo p : partitions) {
            String rack = racks.get(p.brokerId());
            if (rack != null) {
                spread.perRack.merge(rack, 1, Integer::sum);
            }
        }
        return spread;
    }

    /**
     * The broker for one more partition of the topic whose spread is given, or -1 if no active broker
     * but {@code excluded} exists; counts the partition on it (in the load and the spread).
     */
    int place(Spread spread, int excluded) {
        int best = -1;
        int bestRackCount = Integer.MAX_VALUE;
        int bestLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) { // ascending ids: ties go to the lowest
            int id = e.getKey();
            if (id == excluded) {
                continue;
            }
            int rackCount = spread.perRack.getOrDefault(racks.get(id), 0);
            if (rackCount < bestRackCount || (rackCount == bestRackCount && e.getValue() < bestLoad)) {
                best = id;
                bestRackCount = rackCount;
                bestLoad = e.getValue();
            }
        }
        if (best >= 0) {
            load.merge(best, 1, Integer::sum);
            spread.perRack.merge(racks.get(best), 1, Integer::sum);
        }
        return best;
    }

    /** One topic's partition count per rack, kept current by {@link #place}. */
    static final class Spread {
        private final Map<String, Integer> perRack = new HashMap<>();
    }
}
