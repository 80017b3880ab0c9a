package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The balancer's working copy of a snapshot: per-broker loads and partition counts, each topic's
 * partitions per rack, and which brokers may give and receive, kept current as moves are planned;
 * and the distance of each goal from its band, as a function of this state (so a plan never undoes
 * itself: every move strictly lowers its goal's distance and leaves higher goals no worse). The
 * rack bookkeeping is in {@link RackSpread}.
 *
 * <p>Roles: a <em>target</em> is a ready broker not being drained; the goals balance over the
 * targets. A <em>receiver</em> is a target that is not slow. Partitions on brokers that are neither
 * draining nor targets (not ready: maybe starting) are left where they are and counted nowhere.
 * A broker's rates are its measured ones, or the sum of its partitions' when it reported none; a
 * move shifts the partition's estimated rates from one broker to the other.
 *
 * <p>Indices: brokers and partitions are addressed by their position in the snapshot's sorted
 * lists, so every iteration here runs in broker id, then topic and partition order.
 *
 * <p>Not thread-safe: one instance serves one {@link Balancer#plan} call on its caller's thread.
 */
final class BalanceState {

    /** The two network rates a goal balances. */
    enum Metric {
        IN("network-in"), OUT("network-out");

        final String goal;

        Metric(String goal) {
            this.goal = goal;
        }
    }

    /** The fraction of the band a goal that is not met works to (see {@link #refreshTightening}). */
    static final double INNER_BAND = 0.8;

    final BalancerConfig config;
    final ClusterSnapshot snapshot;
    final int brokerCount;
    final int[] ids;
    final String[] rackOf;
    final boolean[] draining;
    final boolean[] target;
    final boolean[] receiver;
    final boolean[] slow;
    final double walMedian;
    final double[] in;
    final double[] out;
    final int[] count;
    final List<TreeSet<Integer>> partitionsOn = new ArrayList<>();

    final PartitionLoad[] parts;
    final int[] owner;
    final double[] partIn;
    final double[] partOut;

    /** Each topic's spread over the racks, kept current by {@link #move}. */
    final RackSpread spread;

    private final boolean[] tightening = new boolean[Metric.values().length];
    final int targetCount;
    final double meanIn;
    final double meanOut;
    final double meanCount;
    final int countLo;
    final int countHi;

    BalanceState(ClusterSnapshot snapshot, Set<Integer> drainingIds, BalancerConfig config) {
        this.config = config;
        this.snapshot = snapshot;
        List<BrokerLoad> brokers = snapshot.brokers();
        brokerCount = brokers.size();
        ids = new int[brokerCount];
        rackOf = new String[brokerCount];
        draining = new boolean[brokerCount];
        target = new boolean[brokerCount];
        receiver = new boolean[brokerCount];
        slow = new boolean[brokerCount];
        in = new double[brokerCount];
        out = new double[brokerCount];
        count = new int[brokerCount];
        Map<Integer, Integer> indexOf = new HashMap<>();
        for (int b = 0; b < brokerCount; b++) {
            BrokerLoad load = brokers.get(b);
            ids[b] = load.id();
            indexOf.put(load.id(), b);
            rackOf[b] = config.rackAware() ? load.rack().orElse(RackSpread.NO_RACK) : RackSpread.NO_RACK;
            draining[b] = drainingIds.contains(load.id());
            target[b] = load.ready() && !draining[b];
            partitionsOn.add(new TreeSet<>());
        }
        walMedian = medianWalP99(brokers);
        int targets = 0;
        for (int b = 0; b < brokerCount; b++) {
            double wal = brokers.get(b).walAppendP99Seconds();
            slow[b] = target[b] && wal > config.slowBrokerWalP99Seconds() && wal > 3 * walMedian;
            receiver[b] = target[b] && !slow[b];
            targets += target[b] ? 1 : 0;
        }
        targetCount = targets;

        List<PartitionLoad> list = snapshot.partitions();
        parts = list.toArray(new PartitionLoad[0]);
        owner = new int[parts.length];
        partIn = new double[parts.length];
        partOut = new double[parts.length];
        double[] sumIn = new double[brokerCount];
        double[] sumOut = new double[brokerCount];
        for (int p = 0; p < parts.length; p++) {
            owner[p] = indexOf.getOrDefault(parts[p].broker(), -1);
            partIn[p] = finiteOrZero(parts[p].bytesInPerSec());
            partOut[p] = finiteOrZero(parts[p].bytesOutPerSec());
            if (owner[p] >= 0) {
                partitionsOn.get(owner[p]).add(p);
                count[owner[p]]++;
                sumIn[owner[p]] += partIn[p];
                sumOut[owner[p]] += partOut[p];
            }
        }
        double totalIn = 0;
        double totalOut = 0;
        int totalCount = 0;
        for (int b = 0; b < brokerCount; b++) {
            BrokerLoad load = brokers.get(b);
            in[b] = Double.isFinite(load.bytesInPerSec()) ? load.bytesInPerSec() : sumIn[b];
            out[b] = Double.isFinite(load.bytesOutPerSec()) ? load.bytesOutPerSec() : sumOut[b];
            if (target[b] || draining[b]) { // what the targets will share once the drained have left
                totalIn += in[b];
                totalOut += out[b];
                totalCount += count[b];
            }
        }
        meanIn = targets == 0 ? 0 : totalIn / targets;
        meanOut = targets == 0 ? 0 : totalOut / targets;
        meanCount = targets == 0 ? 0 : (double) totalCount / targets;
        double slack = Math.max(1, meanCount * config.partitionCountBandPercent() / 100);
        countLo = (int) Math.floor(meanCount - slack);
        countHi = (int) Math.ceil(meanCount + slack);

        spread = new RackSpread(config.rackAware(), rackOf, target, parts, owner);
    }

    private static double finiteOrZero(double v) {
        return Double.isFinite(v) ? v : 0;
    }

    /** Median WAL append p99 over the ready brokers that report one; NaN when none does. */
    private static double medianWalP99(List<BrokerLoad> brokers) {
        double[] known = brokers.stream().filter(BrokerLoad::ready).mapToDouble(BrokerLoad::walAppendP99Seconds)
                .filter(Double::isFinite).sorted().toArray();
        if (known.length == 0) {
            return Double.NaN;
        }
        int mid = known.length / 2;
        return known.length % 2 == 1 ? known[mid] : (known[mid - 1] + known[mid]) / 2;
    }

    // ---- network goals ----

    double mean(Metric m) {
        return m == Metric.IN ? meanIn : meanOut;
    }

    double value(Metric m, int b) {
        return m == Metric.IN ? in[b] : out[b];
    }

    double partValue(Metric m, int p) {
        return m == Metric.IN ? partIn[p] : partOut[p];
    }

    /** Whether the mean per-broker rate is so low that any spread of it meets the goal. */
    boolean trivial(Metric m) {
        return mean(m) < config.trivialBrokerBytesPerSec();
    }

    double band() {
        return config.networkBandPercent() / 100;
    }

    /**
     * How far broker {@code b} at rate {@code v} is outside the band; 0 for brokers the goal does not
     * cover, and 0 below the band for a slow broker (it is meant to be light).
     */
    double bandDistance(Metric m, int b, double v) {
        return distance(m, b, v, band());
    }

    private double distance(Metric m, int b, double v, double band) {
        if (!target[b] || trivial(m)) {
            return 0;
        }
        double hi = mean(m) * (1 + band);
        double lo = mean(m) * (1 - band);
        return Math.max(0, v - hi) + (slow[b] ? 0 : Math.max(0, lo - v));
    }

    /** The sum of the brokers' distances from the (full) band: 0 when the goal is met. */
    double totalBandDistance(Metric m) {
        double sum = 0;
        for (int b = 0; b < brokerCount; b++) {
            sum += bandDistance(m, b, value(m, b));
        }
        return sum;
    }

    /**
     * Marks the network goals that are not met now (a broker outside the band) as tightening: until
     * the next call, their distances ({@link #goalDistance}) are measured against the inner band,
     * {@value #INNER_BAND} of the band. A goal that has to move partitions thus leaves its brokers
     * inside the band with room to spare, rather than on its edge where the next goal could not
     * move a thing; a goal that is met moves nothing, and lower goals may use its whole band.
     * Called at the start of each phase; the distances are still functions of the state alone while
     * the flags hold, so no move is undone by a later one.
     */
    void refreshTightening() {
        for (Metric m : Metric.values()) {
            tightening[m.ordinal()] = totalBandDistance(m) > epsilon(m);
        }
    }

    boolean tightening(Metric m) {
        return tightening[m.ordinal()];
    }

    /** Distance from the band the goal works to: the inner band while it is tightening. */
    double goalDistance(Metric m, int b, double v) {
        return distance(m, b, v, tightening(m) ? band() * INNER_BAND : band());
    }

    double totalGoalDistance(Metric m) {
        double sum = 0;
        for (int b = 0; b < brokerCount; b++) {
            sum += goalDistance(m, b, value(m, b));
        }
        return sum;
    }

    /** The change in the goal's distance if partition {@code p} moved to broker {@code to}. */
    double bandDelta(Metric m, int p, int to) {
        return shiftDelta(m, owner[p], to, partValue(m, p));
    }

    /** The change in the goal's distance if {@code x} of rate {@code m} shifted from {@code from} to {@code to}. */
    double shiftDelta(Metric m, int from, int to, double x) {
        return goalDistance(m, from, value(m, from) - x) + goalDistance(m, to, value(m, to) + x)
                - goalDistance(m, from, value(m, from)) - goalDistance(m, to, value(m, to));
    }

    /** A tolerance for comparing distances in bytes per second, against rounding. */
    double epsilon(Metric m) {
        return 1e-9 * Math.max(1, mean(m));
    }

    /**
     * How far brokers {@code from} and {@code to} would be from the means after moving {@code p}
     * between them: squared relative deviations, summed over both rates (those whose loads are not
     * trivial). Among moves that serve a network goal, the one lowest here brings both brokers
     * towards the middle rather than to the band's edge, and balances the other rate as it goes,
     * which leaves room for the next goal's moves.
     */
    double pairSpread(int p, int from, int to) {
        return pairSpread(from, to, partIn[p], partOut[p]);
    }

    /** {@link #pairSpread(int, int, int)} for shifting {@code xIn} and {@code xOut} from one broker to the other. */
    double pairSpread(int from, int to, double xIn, double xOut) {
        double sum = 0;
        for (Metric m : Metric.values()) {
            if (!trivial(m)) {
                double x = m == Metric.IN ? xIn : xOut;
                double f = (value(m, from) - x - mean(m)) / mean(m);
                double t = (value(m, to) + x - mean(m)) / mean(m);
                sum += f * f + t * t;
            }
        }
        return sum;
    }

    // ---- slow brokers ----

    /** The most ingress a slow broker should keep: the lower edge of the band. */
    double slowCeiling() {
        return meanIn * (1 - band());
    }

    /** How much ingress slow broker {@code b} at {@code v} still has to shed; 0 when loads are trivial. */
    double slowDistance(int b, double v) {
        return slow[b] && !trivial(Metric.IN) ? Math.max(0, v - slowCeiling()) : 0;
    }

    // ---- partition count ----

    int countDistance(int b, int c) {
        if (!target[b]) {
            return 0;
        }
        return Math.max(0, c - countHi) + (slow[b] ? 0 : Math.max(0, countLo - c));
    }

    int totalCountDistance() {
        int sum = 0;
        for (int b = 0; b < brokerCount; b++) {
            sum += countDistance(b, count[b]);
        }
        return sum;
    }

    int countDelta(int p, int to) {
        int from = owner[p];
        return countDistance(from, count[from] - 1) + countDistance(to, count[to] + 1)
                - countDistance(from, count[from]) - countDistance(to, count[to]);
    }

    // ---- moves ----

    /** Moves partition {@code p} to broker {@code to} and returns the move, with {@code reason}. */
    Move move(int p, int to, String reason) {
        int from = owner[p];
        Move move = new Move(parts[p].topic(), parts[p].partition(), ids[from], ids[to], partIn[p], partOut[p],
                reason);
        spread.moved(p, to);
        in[from] -= partIn[p];
        out[from] -= partOut[p];
        in[to] += partIn[p];
        out[to] += partOut[p];
        count[from]--;
        count[to]++;
        partitionsOn.get(from).remove(p);
        partitionsOn.get(to).add(p);
        owner[p] = to;
        return move;
    }

    /** Receivers, least loaded first by {@code m} (then lowest id). */
    List<Integer> receiversAscending(Metric m) {
        List<Integer> list = new ArrayList<>();
        for (int b = 0; b < brokerCount; b++) {
            if (receiver[b]) {
                list.add(b);
            }
        }
        list.sort((a, b) -> Double.compare(value(m, a), value(m, b)) != 0
                ? Double.compare(value(m, a), value(m, b)) : Integer.compare(ids[a], ids[b]));
        return list;
    }

    /** Targets holding partitions, most loaded first by {@code m} (then lowest id). */
    List<Integer> targetsDescending(Metric m) {
        List<Integer> list = new ArrayList<>();
        for (int b = 0; b < brokerCount; b++) {
            if (target[b] && count[b] > 0) {
                list.add(b);
            }
        }
        list.sort((a, b) -> Double.compare(value(m, a), value(m, b)) != 0
                ? Double.compare(value(m, b), value(m, a)) : Integer.compare(ids[a], ids[b]));
        return list;
    }

    /** Percent deviation of broker {@code b} from the mean of {@code m}. */
    double deviationPercent(Metric m, int b) {
        return mean(m) == 0 ? 0 : (value(m, b) - mean(m)) / mean(m) * 100;
    }
}
