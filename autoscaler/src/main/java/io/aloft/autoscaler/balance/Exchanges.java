package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.balance.BalanceState.Metric;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Exchanges: two or three moves that help a goal only together, tried when no single move does.
 * For a network goal, a swap (a broker short of egress but at the top of the ingress band can take
 * nothing without giving); for the partition count, two for one (a broker short of partitions
 * holding a few big ones). An exchange keeps every higher goal as a single move would, and its
 * moves are ordered so that the rack spread holds after each one when some order allows it.
 *
 * <p>Not thread-safe: confined to the {@link Planner} of one {@link Balancer#plan} call.
 */
final class Exchanges {
    private static final int[][] PERMUTATIONS_2 = {{0, 1}, {1, 0}};
    private static final int[][] PERMUTATIONS_3 = {{0, 1, 2}, {1, 2, 0}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}, {2, 0, 1}};

    private final Planner planner;
    private final BalanceState s;
    private final List<Move> moves;

    Exchanges(Planner planner) {
        this.planner = planner;
        this.s = planner.s;
        this.moves = planner.moves;
    }

    /**
     * When no single move helps (typically egress: a broker short of egress but at the top of
     * the ingress band can take nothing without giving), an exchange: the pair's partitions
     * {@code p} and {@code q} trade brokers, shifting the difference of their rates. Only pairs
     * with a broker outside the band are tried, and both brokers must be able to receive.
     */
    boolean networkSwap(Metric m, double eps) {
        List<Integer> receivers = s.receiversAscending(m);
        List<Integer> givers = new ArrayList<>(receivers);
        givers.sort(Comparator.<Integer>comparingDouble(b -> -s.value(m, b)).thenComparingInt(b -> s.ids[b]));
        for (int from : givers) {
            for (int to : receivers) {
                if (s.value(m, to) >= s.value(m, from)) {
                    break;
                }
                if (s.goalDistance(m, from, s.value(m, from)) <= eps
                        && s.goalDistance(m, to, s.value(m, to)) <= eps) {
                    continue;
                }
                SwapCandidate best = null;
                for (int p : s.partitionsOn.get(from)) {
                    for (int q : s.partitionsOn.get(to)) {
                        double x = s.partValue(m, p) - s.partValue(m, q);
                        if (x < s.config.minMoveBytesPerSec() || x <= 0) {
                            continue;
                        }
                        double xIn = s.partIn[p] - s.partIn[q];
                        double delta = s.shiftDelta(m, from, to, x);
                        if (delta >= -eps || (m == Metric.OUT
                                && s.shiftDelta(Metric.IN, from, to, xIn) > s.epsilon(Metric.IN))) {
                            continue;
                        }
                        double key = s.pairSpread(from, to, xIn, s.partOut[p] - s.partOut[q]);
                        if ((best == null || key < best.key || (key == best.key && delta < best.delta))
                                && s.spread.keeps(new int[] {p, q}, new int[] {to, from})) {
                            best = new SwapCandidate(p, q, key, delta);
                        }
                    }
                }
                if (best != null) {
                    double x = s.partValue(m, best.p) - s.partValue(m, best.q);
                    String reason = String.format(Locale.ROOT,
                            "%s band +-%s%%: exchange %s and %s: broker %d at %s -> %s, broker %d at %s -> %s",
                            m.goal, Findings.number(s.config.networkBandPercent()), s.parts[best.p].name(),
                            s.parts[best.q].name(), s.ids[from], Findings.percent(s.deviationPercent(m, from)),
                            Findings.percent((s.value(m, from) - x - s.mean(m)) / s.mean(m) * 100), s.ids[to],
                            Findings.percent(s.deviationPercent(m, to)),
                            Findings.percent((s.value(m, to) + x - s.mean(m)) / s.mean(m) * 100));
                    addAll(new int[] {best.p, best.q}, new int[] {to, from}, reason);
                    return true;
                }
            }
        }
        return false;
    }

    private record SwapCandidate(int p, int q, double key, double delta) {
    }

    /**
     * When no single move helps (the broker short of partitions holds a few big ones and is at the
     * top of a network band), two for one: it gives a partition {@code p} to a broker with too many
     * and takes two, {@code q1} and {@code q2}, whose rates together are close to {@code p}'s,
     * keeping the network bands and the rack spread. The exchange closest to the means wins.
     */
    boolean countExchange() {
        for (int from : planner.countSources()) {
            if (!s.receiver[from]) {
                continue; // a slow broker cannot take p back
            }
            for (int to : planner.countReceivers()) {
                if (s.count[to] + 1 >= s.count[from]) {
                    break;
                }
                if (s.countDistance(from, s.count[from] - 1) + s.countDistance(to, s.count[to] + 1)
                        >= s.countDistance(from, s.count[from]) + s.countDistance(to, s.count[to])) {
                    continue;
                }
                int[] best = null;
                double bestKey = Double.MAX_VALUE;
                List<Integer> many = new ArrayList<>(s.partitionsOn.get(from));
                for (int p : s.partitionsOn.get(to)) {
                    for (int i = 0; i < many.size(); i++) {
                        for (int j = i + 1; j < many.size(); j++) {
                            int q1 = many.get(i);
                            int q2 = many.get(j);
                            double xIn = s.partIn[q1] + s.partIn[q2] - s.partIn[p];
                            double xOut = s.partOut[q1] + s.partOut[q2] - s.partOut[p];
                            if (s.shiftDelta(Metric.IN, from, to, xIn) > s.epsilon(Metric.IN)
                                    || s.shiftDelta(Metric.OUT, from, to, xOut) > s.epsilon(Metric.OUT)) {
                                continue;
                            }
                            double key = s.pairSpread(from, to, xIn, xOut);
                            if (key < bestKey
                                    && s.spread.keeps(new int[] {p, q1, q2}, new int[] {from, to, to})) {
                                best = new int[] {p, q1, q2};
                                bestKey = key;
                            }
                        }
                    }
                }
                if (best != null) {
                    String reason = String.format(Locale.ROOT,
                            "partition count band %d..%d: broker %d has %d, broker %d has %d;"
                                    + " exchange %s for %s and %s", s.countLo, s.countHi, s.ids[from],
                            s.count[from], s.ids[to], s.count[to], s.parts[best[0]].name(),
                            s.parts[best[1]].name(), s.parts[best[2]].name());
                    addAll(best, new int[] {from, to, to}, reason);
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The order in which to run the moves of an exchange so that the rack spread holds after each
     * of them, not only at the end (the moves run one after another, and the cluster passes
     * through every prefix); null if there is none.
     */
    private int[] rackSafeOrder(int[] ps, int[] tos) {
        for (int[] perm : ps.length == 2 ? PERMUTATIONS_2 : PERMUTATIONS_3) {
            boolean keeps = true;
            for (int k = 1; k <= perm.length && keeps; k++) {
                int[] prefixPs = new int[k];
                int[] prefixTos = new int[k];
                for (int i = 0; i < k; i++) {
                    prefixPs[i] = ps[perm[i]];
                    prefixTos[i] = tos[perm[i]];
                }
                keeps = s.spread.keeps(prefixPs, prefixTos);
            }
            if (keeps) {
                return perm;
            }
        }
        return null;
    }

    /**
     * Adds an exchange's moves, in an order that keeps the rack spread after each one if there is
     * one. There may be none (a topic spread 10/10 over two racks, one partition crossing each
     * way): then, for the seconds between the two moves, the topic is one partition further off.
     */
    private void addAll(int[] ps, int[] tos, String reason) {
        int[] order = rackSafeOrder(ps, tos);
        for (int i : order != null ? order : (ps.length == 2 ? PERMUTATIONS_2 : PERMUTATIONS_3)[0]) {
            moves.add(s.move(ps[i], tos[i], reason));
        }
    }
}
