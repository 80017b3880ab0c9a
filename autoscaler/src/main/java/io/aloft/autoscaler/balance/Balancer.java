package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.balance.BalanceState.Metric;
import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The self-balancer: from one {@link ClusterSnapshot} and the brokers marked for removal, a
 * {@link Plan} of partition moves. A pure function (no I/O, no clock, no randomness): the same
 * snapshot gives the same plan, whatever order the snapshot's lists came in.
 *
 * <p><b>Goals</b>, highest priority first; a move for one goal never makes a higher one worse (an
 * even rack spread stays even, a rate within its band stays within it):
 * <ol>
 * <li><b>drain</b>: every partition of a broker marked for removal moves off it (biggest ingress
 *     first, each to the rack holding the fewest of its topic's partitions, then the least loaded
 *     broker), whether or not that broker is ready; it receives none;
 * <li><b>rack spread</b>: each topic's partitions spread evenly (counts differing by at most one)
 *     over the racks of the ready brokers, as the controller places them ({@link RackSpread});
 * <li><b>slow brokers</b>: a broker whose WAL append p99 is above the configured bound and above
 *     three times the median receives nothing and sheds ingress to the lower edge of the band;
 * <li><b>network-in</b>, then <b>network-out</b>: every ready broker within the band around the mean
 *     (unless the mean is trivial), moving no partition carrying less than the minimum move;
 * <li><b>partition count</b>: every ready broker within the count band (at least one either way).
 * </ol>
 * Brokers that are not ready give and receive nothing (they may be starting). The mean a band is
 * centred on is the load of the ready brokers and the drained ones, over the ready brokers that stay.
 *
 * <p><b>Greedy</b> ({@link Planner}): for a load goal, the most loaded broker gives to the least
 * loaded one that may receive (then the next pair, if that one has no useful move) the partition
 * that lowers the goal's distance from its band, choosing among those the one that leaves the two
 * brokers nearest the means; a move that lowers the distance by nothing is not made. A goal that is
 * not met works to 80% of its band, so it does not leave brokers on the edge where the next goal
 * could not move a thing; a goal that is met makes no move. When no single move helps, an exchange
 * ({@link Exchanges}): a swap of two partitions for a network goal, two partitions for one for the
 * count. Each move strictly lowers the goals' distances taken in priority order, which are
 * functions of the cluster state alone, so a plan cannot cycle and planning again on the state it
 * leads to never moves a partition straight back (a partition too hot for any band stays put
 * rather than bouncing). The goals repeat until a round moves nothing or the plan holds
 * {@link BalancerConfig#maxMovesPerPlan()} moves. Ties go to the lowest broker id, then topic and
 * partition.
 *
 * <p>Immutable and thread-safe: each call works on its own state.
 */
public final class Balancer {
    private final BalancerConfig config;

    public Balancer(BalancerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public BalancerConfig config() {
        return config;
    }

    /**
     * The plan for {@code snapshot}: moves in execution order, and one finding per goal.
     *
     * @param draining ids of brokers marked for removal (ids not in the snapshot are ignored)
     */
    public Plan plan(ClusterSnapshot snapshot, Set<Integer> draining) {
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(draining, "draining");
        BalanceState state = new BalanceState(snapshot, draining, config);
        List<String> before = Findings.status(state);
        List<Move> moves = new ArrayList<>();
        if (state.targetCount > 0) {
            Planner planner = new Planner(state, moves);
            planner.drain();
            boolean moved = true;
            while (moved && !planner.full()) {
                int start = moves.size();
                planner.rackSpread();
                planner.slowBrokers();
                planner.network(Metric.IN);
                planner.network(Metric.OUT);
                planner.partitionCount();
                moved = moves.size() > start;
            }
        }
        return new Plan(moves, Findings.combine(state, before, Findings.status(state)));
    }

    /**
     * The snapshot {@code plan} leads to: each moved partition on its new broker, and its rates taken
     * from the old broker's and added to the new one's (rates a broker did not report stay unknown).
     * For simulations and for checking that a plan's result needs no further moves.
     *
     * @throws IllegalArgumentException if a move names a partition not in the snapshot or not on its
     *     {@code fromBroker} at that point of the plan
     */
    public static ClusterSnapshot apply(ClusterSnapshot snapshot, Plan plan) {
        Map<String, PartitionLoad> partitions = new HashMap<>();
        for (PartitionLoad p : snapshot.partitions()) {
            partitions.put(p.name(), p);
        }
        Map<Integer, double[]> rates = new HashMap<>();
        for (BrokerLoad b : snapshot.brokers()) {
            rates.put(b.id(), new double[] {b.bytesInPerSec(), b.bytesOutPerSec()});
        }
        for (Move m : plan.moves()) {
            PartitionLoad p = partitions.get(m.name());
            if (p == null || p.broker() != m.fromBroker()) {
                throw new IllegalArgumentException("move " + m.name() + " from broker " + m.fromBroker()
                        + ": the partition is " + (p == null ? "not in the snapshot" : "on broker " + p.broker()));
            }
            partitions.put(m.name(), new PartitionLoad(p.topic(), p.partition(), m.toBroker(), p.bytesInPerSec(),
                    p.bytesOutPerSec()));
            shift(rates.get(m.fromBroker()), -m.bytesInPerSec(), -m.bytesOutPerSec());
            shift(rates.get(m.toBroker()), m.bytesInPerSec(), m.bytesOutPerSec());
        }
        List<BrokerLoad> brokers = new ArrayList<>();
        for (BrokerLoad b : snapshot.brokers()) {
            double[] r = rates.get(b.id());
            brokers.add(new BrokerLoad(b.id(), b.rack(), r[0], r[1], b.cpuUsage(), b.walAppendP99Seconds(),
                    b.produceP99Seconds(), b.walFullWaitsPerSec(), b.walFillRatio(), b.ready()));
        }
        return new ClusterSnapshot(snapshot.timeMs(), brokers, new ArrayList<>(partitions.values()));
    }

    private static void shift(double[] rates, double in, double out) {
        if (rates != null) { // a move to or from an unregistered broker changes no broker's rates
            rates[0] += in;
            rates[1] += out;
        }
    }
}
