package io.aloft.omb.runner;

import org.HdrHistogram.Histogram;

/**
 * Everything measured over one stretch of a run: counts and latency histograms. Mutated only by
 * {@link RunStats} under its lock while open; read-only once {@link RunStats#close} returned it.
 *
 * <p>Units: publish latency, publish delay and commit latency in microseconds, end-to-end latency
 * in milliseconds (record timestamps have millisecond resolution), redelivery latency (share groups:
 * from a consumer's release of a record to its arrival again) in microseconds. With transactions,
 * {@code sentMsgs} counts messages of committed transactions and {@code sendErrors} those of
 * aborted ones.
 */
final class Window {
    private final long startNanos;
    private long endNanos;
    long sentMsgs;
    long sentBytes;
    long sendErrors;
    long receivedMsgs;
    long receivedBytes;
    long committedTxns;
    long abortedTxns;
    long releasedMsgs;
    long redeliveredMsgs;
    long otherRedeliveries;
    final Histogram publishLatencyMicros = new Histogram(3);
    final Histogram publishDelayMicros = new Histogram(3);
    final Histogram e2eLatencyMillis = new Histogram(3);
    final Histogram commitLatencyMicros = new Histogram(3);
    final Histogram redeliveryLatencyMicros = new Histogram(3);

    Window(long startNanos) {
        this.startNanos = startNanos;
        this.endNanos = startNanos;
    }

    void extendTo(long nanos) {
        endNanos = nanos;
    }

    double seconds() {
        return (endNanos - startNanos) / 1e9;
    }

    double publishRate() {
        return perSecond(sentMsgs);
    }

    double publishMBps() {
        return perSecond(sentBytes) / RunStats.MB;
    }

    double consumeRate() {
        return perSecond(receivedMsgs);
    }

    double consumeMBps() {
        return perSecond(receivedBytes) / RunStats.MB;
    }

    /** Transactions committed per second. */
    double commitRate() {
        return perSecond(committedTxns);
    }

    /** A percentile of the commitTransaction call's duration in ms, NaN when nothing committed. */
    double commitMs(double percentile) {
        return micros(commitLatencyMicros, percentile) / 1000.0;
    }

    /** A percentile of redelivery latency in ms, NaN when nothing was redelivered. */
    double redeliveryMs(double percentile) {
        return micros(redeliveryLatencyMicros, percentile) / 1000.0;
    }

    private double perSecond(long count) {
        double s = seconds();
        return s <= 0 ? 0 : count / s;
    }

    /** A percentile of publish latency in ms, NaN when nothing was recorded. */
    double publishMs(double percentile) {
        return micros(publishLatencyMicros, percentile) / 1000.0;
    }

    /** A percentile of end-to-end latency in ms, NaN when nothing was recorded. */
    double e2eMs(double percentile) {
        return e2eLatencyMillis.getTotalCount() == 0 ? Double.NaN
                : percentile >= 100 ? e2eLatencyMillis.getMaxValue()
                : e2eLatencyMillis.getValueAtPercentile(percentile);
    }

    double publishDelayMs(double percentile) {
        return micros(publishDelayMicros, percentile) / 1000.0;
    }

    private static double micros(Histogram h, double percentile) {
        if (h.getTotalCount() == 0) {
            return Double.NaN;
        }
        return percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
    }
}
