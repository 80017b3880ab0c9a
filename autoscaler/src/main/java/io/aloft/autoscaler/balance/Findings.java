package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.balance.BalanceState.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The plan's findings: one line per goal, its state before the plan and after it, with the figures
 * an operator needs to judge it (e.g. {@code network-in: max deviation +38.2% (broker 2) -> +6.1%
 * (broker 5), band +-10%, mean 12.0 MiB/s}). Stateless; numbers are formatted in {@link Locale#ROOT}.
 */
final class Findings {
    private static final int DRAIN = 0;
    private static final int RACK = 1;
    private static final int SLOW = 2;
    private static final int IN = 3;
    private static final int OUT = 4;
    private static final int COUNT = 5;

    private Findings() {
    }

    /** Each goal's state now, in priority order, for {@link #combine}. */
    static List<String> status(BalanceState s) {
        List<String> status = new ArrayList<>();
        int leaving = 0;
        for (int b = 0; b < s.brokerCount; b++) {
            leaving += s.draining[b] ? s.count[b] : 0;
        }
        status.add(leaving + (leaving == 1 ? " partition" : " partitions"));
        status.add(rackStatus(s));
        StringJoiner slow = new StringJoiner(", ");
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.slow[b]) {
                slow.add("broker " + s.ids[b] + " ingress " + rate(s.in[b]));
            }
        }
        status.add(slow.toString());
        status.add(deviation(s, Metric.IN));
        status.add(deviation(s, Metric.OUT));
        status.add(countDeviation(s));
        return status;
    }

    /** The finding lines from the status before and after the plan. */
    static List<String> combine(BalanceState s, List<String> before, List<String> after) {
        List<String> lines = new ArrayList<>();
        String noTarget = s.targetCount == 0 ? " (no ready broker to move partitions to)" : "";
        StringJoiner drainingIds = new StringJoiner(", ", "[", "]");
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.draining[b]) {
                drainingIds.add(Integer.toString(s.ids[b]));
            }
        }
        lines.add(drainingIds.length() == 2 ? "drain: no broker marked for removal"
                : "drain: brokers " + drainingIds + " hold " + before.get(DRAIN) + " -> " + after.get(DRAIN)
                        + noTarget);
        if (!s.config.rackAware()) {
            lines.add("rack spread: off (rackAware false)");
        } else if (!s.spread.active()) {
            lines.add("rack spread: the ready brokers are in one rack, nothing to spread");
        } else {
            lines.add("rack spread: " + before.get(RACK) + " -> " + after.get(RACK) + " over racks "
                    + String.join(", ",
                            List.of(s.spread.names).stream().map(r -> r.isEmpty() ? "(none)" : r).toList()));
        }
        String median = Double.isNaN(s.walMedian) ? "unknown" : number3(s.walMedian) + " s";
        lines.add(before.get(SLOW).isEmpty()
                ? "slow brokers: none (WAL append p99 median " + median + ", bound "
                        + number3(s.config.slowBrokerWalP99Seconds()) + " s)"
                : "slow brokers: " + before.get(SLOW) + " -> " + after.get(SLOW) + " (WAL append p99 median "
                        + median + "; a slow broker keeps at most " + rate(s.slowCeiling()) + ")");
        for (Metric m : Metric.values()) {
            if (s.trivial(m)) {
                lines.add(m.goal + ": mean " + rate(s.mean(m)) + " per broker, below the trivial "
                        + rate(s.config.trivialBrokerBytesPerSec()) + ": balanced as it is");
            } else {
                lines.add(m.goal + ": max deviation " + before.get(m == Metric.IN ? IN : OUT) + " -> "
                        + after.get(m == Metric.IN ? IN : OUT) + ", band +-"
                        + number(s.config.networkBandPercent()) + "%, mean " + rate(s.mean(m)) + " per broker");
            }
        }
        lines.add("partition count: max deviation " + before.get(COUNT) + " -> " + after.get(COUNT) + ", band "
                + s.countLo + ".." + s.countHi + " (mean " + String.format(Locale.ROOT, "%.1f", s.meanCount) + ")");
        return lines;
    }

    private static String rackStatus(BalanceState s) {
        if (!s.spread.active()) {
            return "";
        }
        String worst = null;
        int worstSpread = 1;
        for (Map.Entry<String, int[]> e : s.spread.topics.entrySet()) {
            int spread = RackSpread.spread(e.getValue());
            if (spread > worstSpread) {
                worstSpread = spread;
                StringJoiner counts = new StringJoiner(" ", e.getKey() + ": ", "");
                for (int r = 0; r < s.spread.names.length; r++) {
                    counts.add((s.spread.names[r].isEmpty() ? "(none)" : s.spread.names[r]) + "=" + e.getValue()[r]);
                }
                worst = counts.toString();
            }
        }
        return s.spread.unevenTopics() + " of " + s.spread.topics.size() + " topics uneven"
                + (worst == null ? "" : " (worst " + worst + ")");
    }

    private static String deviation(BalanceState s, Metric m) {
        int worst = -1;
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.target[b] && (worst < 0
                    || Math.abs(s.deviationPercent(m, b)) > Math.abs(s.deviationPercent(m, worst)))) {
                worst = b;
            }
        }
        return worst < 0 ? "none" : percent(s.deviationPercent(m, worst)) + " (broker " + s.ids[worst] + ")";
    }

    private static String countDeviation(BalanceState s) {
        int worst = -1;
        for (int b = 0; b < s.brokerCount; b++) {
            if (s.target[b] && (worst < 0 || Math.abs(s.count[b] - s.meanCount) > Math.abs(s.count[worst]
                    - s.meanCount))) {
                worst = b;
            }
        }
        return worst < 0 ? "none"
                : String.format(Locale.ROOT, "%+.1f (broker %d has %d)", s.count[worst] - s.meanCount,
                        s.ids[worst], s.count[worst]);
    }

    /** A rate in MiB/s, e.g. {@code 12.3 MiB/s}. */
    static String rate(double bytesPerSec) {
        return String.format(Locale.ROOT, "%.2f MiB/s", bytesPerSec / (1024 * 1024));
    }

    /** A signed percentage, e.g. {@code +38.2%}. */
    static String percent(double p) {
        return String.format(Locale.ROOT, "%+.1f%%", p);
    }

    /** A number without a needless fraction: {@code 10}, {@code 7.5}. */
    static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String number3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
