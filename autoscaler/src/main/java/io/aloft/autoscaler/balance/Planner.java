package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.balance.BalanceState.Metric;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The goals' greedy loops over one {@link BalanceState}, appending to one list of moves: the order of
 * goals and the rules are described on {@link Balancer}. Exchanges (two or three moves that only
 * help together) are in {@link Exchanges}.
 *
 * <p>Not thread-safe: confined to one {@link Balancer#plan} call.
 */
final class Planner {
    final BalanceState s;
    final List<Move> moves;
    final int max;
    private final Exchanges exchanges;

    Planner(BalanceState state, List<Move> moves) {
        this.s = state;
        this.moves = moves;
        this.max = state.config.maxMovesPerPlan();
        this.exchanges = new Exchanges(this);
    }

    boolean full() {
        return moves.size() >= max;
    }

    void drain() {
        List<Integer> leaving = new ArrayList<>();
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.draining[b]) {
                leaving.addAll(s.partitionsOn.get(b));
            }
        }
        // Biggest first, so the small ones even out what the big ones leave.
        leaving.sort(Comparator.<Integer>comparingDouble(p -> -s.partIn[p])
                .thenComparingDouble(p -> -s.partOut[p]).thenComparingInt(p -> p));
        for (int p : leaving) {
            if (full()) {
                return;
            }
            int best = -1;
            for (int d = 0; d < s.brokerCount; d++) {
                if (s.receiver[d] && (best < 0 || drainOrder(p, d, best) < 0)) {
                    best = d;
                }
            }
            if (best < 0) {
                return; // nowhere to go: the finding says what is left
            }
            int from = s.owner[p];
            String rackNote = s.spread.active() ? String.format(Locale.ROOT, ", to rack %s holding %d of %s",
                    rackName(s.rackOf[best]), s.spread.countsOf(p)[s.spread.rackOf(best)],
                    s.parts[p].topic()) : "";
            moves.add(s.move(p, best, "drain: broker " + s.ids[from] + " marked for removal" + rackNote));
        }
    }

    /** Negative if broker {@code a} is the better home for drained partition {@code p} than {@code b}. */
    private int drainOrder(int p, int a, int b) {
        if (s.spread.active()) {
            int[] perRack = s.spread.countsOf(p);
            int c = Integer.compare(perRack[s.spread.rackOf(a)], perRack[s.spread.rackOf(b)]);
            if (c != 0) {
                return c;
            }
        }
        for (Metric m : Metric.values()) {
            if (!s.trivial(m)) {
                int c = Double.compare(s.value(m, a), s.value(m, b));
                if (c != 0) {
                    return c;
                }
            }
        }
        int c = Integer.compare(s.count[a], s.count[b]);
        return c != 0 ? c : Integer.compare(s.ids[a], s.ids[b]);
    }

    void rackSpread() {
        if (!s.spread.active()) {
            return;
        }
        s.refreshTightening();
        boolean moved = true;
        while (moved && !full()) {
            moved = false;
            for (String topic : s.spread.topics.keySet()) {
                if (full()) {
                    return;
                }
                moved |= rackMove(topic);
            }
        }
    }

    /** One move of {@code topic} from a fullest rack to an emptiest one that can receive, if any. */
    private boolean rackMove(String topic) {
        int[] perRack = s.spread.topics.get(topic);
        if (RackSpread.spread(perRack) < 2) {
            return false;
        }
        List<Integer> order = new ArrayList<>();
        for (int r = 0; r < perRack.length; r++) {
            order.add(r);
        }
        order.sort(Comparator.comparingInt(r -> -perRack[r])); // stable: ties by rack name
        for (int src : order) {
            for (int i = order.size() - 1; i >= 0; i--) {
                int dst = order.get(i);
                if (perRack[src] - perRack[dst] < 2) {
                    break;
                }
                Candidate best = null;
                for (int p : s.spread.partitionsByTopic.get(topic)) {
                    int from = s.owner[p];
                    if (from < 0 || !s.target[from] || s.spread.rackOf(from) != src) {
                        continue;
                    }
                    for (int d = 0; d < s.brokerCount; d++) {
                        if (s.receiver[d] && s.spread.rackOf(d) == dst) {
                            best = Candidate.better(best, lowerGoals(p, d, 0));
                        }
                    }
                }
                if (best != null) {
                    String reason = String.format(Locale.ROOT,
                            "rack spread: %s has %d partitions in rack %s, %d in rack %s", topic, perRack[src],
                            rackName(s.spread.names[src]), perRack[dst], rackName(s.spread.names[dst]));
                    moves.add(s.move(best.partition, best.to, reason));
                    return true;
                }
            }
        }
        return false;
    }

    void slowBrokers() {
        s.refreshTightening();
        boolean moved = true;
        while (moved && !full()) {
            moved = false;
            for (int b = 0; b < s.brokerCount && !moved; b++) {
                double distance = s.slowDistance(b, s.in[b]);
                if (distance <= s.epsilon(Metric.IN)) {
                    continue;
                }
                Candidate best = null;
                for (int p : s.partitionsOn.get(b)) {
                    if (s.partIn[p] < s.config.minMoveBytesPerSec()) {
                        continue;
                    }
                    double after = s.slowDistance(b, s.in[b] - s.partIn[p]);
                    if (after >= distance - s.epsilon(Metric.IN)) {
                        continue;
                    }
                    for (int d = 0; d < s.brokerCount; d++) {
                        if (s.receiver[d] && s.spread.keeps(p, d)) {
                            best = Candidate.better(best, lowerGoals(p, d, after));
                        }
                    }
                }
                if (best != null) {
                    String reason = String.format(Locale.ROOT,
                            "slow broker %d: WAL append p99 %.3f s over %.3f s and 3x the median %.3f s;"
                                    + " ingress %s, shedding to %s",
                            s.ids[b], s.snapshot.brokers().get(b).walAppendP99Seconds(),
                            s.config.slowBrokerWalP99Seconds(), s.walMedian, Findings.rate(s.in[b]),
                            Findings.rate(s.slowCeiling()));
                    moves.add(s.move(best.partition, best.to, reason));
                    moved = true;
                }
            }
        }
    }

    /**
     * A candidate scored on the goals below rack spread and slow brokers (its {@code first} key),
     * for moves made for those two.
     */
    private Candidate lowerGoals(int p, int d, double first) {
        return new Candidate(p, d, first, s.bandDelta(Metric.IN, p, d), s.bandDelta(Metric.OUT, p, d),
                s.countDelta(p, d), s.ids[d]);
    }

    void network(Metric m) {
        double eps = s.epsilon(m);
        s.refreshTightening();
        if (!s.tightening(m)) {
            return;
        }
        while (!full() && s.totalGoalDistance(m) > eps) {
            if (!networkMove(m, eps) && (moves.size() + 2 > max || !exchanges.networkSwap(m, eps))) {
                return;
            }
        }
    }

    private boolean networkMove(Metric m, double eps) {
        List<Integer> receivers = s.receiversAscending(m);
        for (int from : s.targetsDescending(m)) {
            for (int to : receivers) {
                if (s.value(m, to) >= s.value(m, from)) {
                    break;
                }
                Candidate best = null;
                for (int p : s.partitionsOn.get(from)) {
                    double x = s.partValue(m, p);
                    if (x < s.config.minMoveBytesPerSec() || x <= 0) {
                        continue;
                    }
                    double delta = s.bandDelta(m, p, to);
                    if (delta >= -eps || !s.spread.keeps(p, to)
                            || (m == Metric.OUT && s.bandDelta(Metric.IN, p, to) > s.epsilon(Metric.IN))) {
                        continue;
                    }
                    best = Candidate.better(best, new Candidate(p, to, s.pairSpread(p, from, to), delta, 0, 0, 0));
                }
                if (best != null) {
                    double x = s.partValue(m, best.partition);
                    String reason = String.format(Locale.ROOT,
                            "%s band +-%s%%: broker %d at %s -> %s, broker %d at %s -> %s (%s)", m.goal,
                            Findings.number(s.config.networkBandPercent()), s.ids[from],
                            Findings.percent(s.deviationPercent(m, from)),
                            Findings.percent((s.value(m, from) - x - s.mean(m)) / s.mean(m) * 100), s.ids[to],
                            Findings.percent(s.deviationPercent(m, to)),
                            Findings.percent((s.value(m, to) + x - s.mean(m)) / s.mean(m) * 100),
                            Findings.rate(x));
                    moves.add(s.move(best.partition, to, reason));
                    return true;
                }
            }
        }
        return false;
    }

    void partitionCount() {
        s.refreshTightening();
        while (!full() && s.totalCountDistance() > 0) {
            if (!countMove() && (moves.size() + 3 > max || !exchanges.countExchange())) {
                return;
            }
        }
    }

    /** Targets holding partitions, most first (then lowest id). */
    List<Integer> countSources() {
        List<Integer> sources = new ArrayList<>();
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.target[b] && s.count[b] > 0) {
                sources.add(b);
            }
        }
        sources.sort(Comparator.<Integer>comparingInt(b -> -s.count[b]).thenComparingInt(b -> s.ids[b]));
        return sources;
    }

    /** Receivers, fewest partitions first (then lowest id). */
    List<Integer> countReceivers() {
        List<Integer> receivers = new ArrayList<>();
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.receiver[b]) {
                receivers.add(b);
            }
        }
        receivers.sort(Comparator.<Integer>comparingInt(b -> s.count[b]).thenComparingInt(b -> s.ids[b]));
        return receivers;
    }

    private boolean countMove() {
        List<Integer> receivers = countReceivers();
        for (int from : countSources()) {
            for (int to : receivers) {
                if (s.count[to] + 1 >= s.count[from]) {
                    break;
                }
                if (s.countDelta(s.partitionsOn.get(from).first(), to) >= 0) {
                    continue; // the same for every partition of the pair
                }
                Candidate best = null;
                for (int p : s.partitionsOn.get(from)) {
                    if (s.spread.keeps(p, to) && s.bandDelta(Metric.IN, p, to) <= s.epsilon(Metric.IN)
                            && s.bandDelta(Metric.OUT, p, to) <= s.epsilon(Metric.OUT)) {
                        best = Candidate.better(best,
                                new Candidate(p, to, s.partIn[p] + s.partOut[p], 0, 0, 0, 0));
                    }
                }
                if (best != null) {
                    String reason = String.format(Locale.ROOT,
                            "partition count band %d..%d: broker %d has %d, broker %d has %d", s.countLo,
                            s.countHi, s.ids[from], s.count[from], s.ids[to], s.count[to]);
                    moves.add(s.move(best.partition, to, reason));
                    return true;
                }
            }
        }
        return false;
    }

    private static String rackName(String rack) {
        return rack.isEmpty() ? "(none)" : rack;
    }

    /**
     * One possible move with its scores, lowest best, compared in order; then the partition (topic and
     * partition order) and the receiving broker's id, so ties resolve the same way every time.
     */
    private record Candidate(int partition, int to, double k1, double k2, double k3, double k4, int toId) {
        static Candidate better(Candidate best, Candidate c) {
            return best == null || c.compareTo(best) < 0 ? c : best;
        }

        private int compareTo(Candidate o) {
            int c = Double.compare(k1, o.k1);
            c = c != 0 ? c : Double.compare(k2, o.k2);
            c = c != 0 ? c : Double.compare(k3, o.k3);
            c = c != 0 ? c : Double.compare(k4, o.k4);
            c = c != 0 ? c : Integer.compare(partition, o.partition);
            return c != 0 ? c : Integer.compare(toId, o.toId);
        }
    }
}
