package io.aloft.omb.report;

import java.util.Locale;

/**
 * One periodic progress line of a run, e.g. {@code [test 20s] pub 12345 msg/s 12.1 MB/s | cons
 * 12300 msg/s 12.0 MB/s | backlog 4.2k msgs | pub lat ms p50 2.1 p99 9.8 | e2e ms p50 3.0 p99 14}.
 * Latencies that were not measured in the interval (NaN) print as {@code -}. Immutable.
 *
 * @param phase the run's phase, e.g. {@code warmup}, {@code test}, {@code build}, {@code drain}
 * @param elapsedSeconds seconds since the phase began
 * @param backlogMsgs messages published but not yet consumed, summed over subscriptions
 * @param errors send failures in the interval
 */
public record ProgressLine(String phase, double elapsedSeconds, double publishRateMsgs, double publishMBps,
        double consumeRateMsgs, double consumeMBps, long backlogMsgs, double publishP50Ms, double publishP99Ms,
        double e2eP50Ms, double e2eP99Ms, long errors) {

    public String format() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "[%-6s %4.0fs] pub %6.0f msg/s %6.1f MB/s | cons %6.0f msg/s %6.1f MB/s"
                + " | backlog %s msgs | pub lat ms p50 %s p99 %s | e2e ms p50 %s p99 %s", phase, elapsedSeconds,
                publishRateMsgs, publishMBps, consumeRateMsgs, consumeMBps, count(backlogMsgs),
                latency(publishP50Ms), latency(publishP99Ms), latency(e2eP50Ms), latency(e2eP99Ms)));
        if (errors > 0) {
            sb.append(" | errors ").append(errors);
        }
        return sb.toString();
    }

    /** 950, 4.2k, 12.0M: short enough for a line, precise enough to see a trend. */
    static String count(long n) {
        long abs = Math.abs(n);
        if (abs < 1000) {
            return Long.toString(n);
        }
        if (abs < 1_000_000) {
            return String.format(Locale.ROOT, "%.1fk", n / 1e3);
        }
        return String.format(Locale.ROOT, "%.1fM", n / 1e6);
    }

    /** One decimal below 100 ms, whole milliseconds above. */
    static String latency(double ms) {
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms < 100 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%.0f", ms);
    }
}
