package io.aloft.omb.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The run's measurements. Thread-safe.
 *
 * <p>Design: producer callbacks and consumer poll loops record into wait-free HdrHistogram
 * {@link Recorder}s and {@link LongAdder}s, so the hot paths never take a lock. {@link #sample}
 * (under this object's lock) takes the recorders' interval histograms and the counters' growth
 * since the previous sample and adds them to every open {@link Window}. A window is opened for
 * each stretch a figure describes (the test phase, the backlog build, the drain, the interval of
 * the next progress line) and closed with a final sample; the same interval histogram can thus
 * feed a progress line and the phase totals without being recorded twice.
 */
final class RunStats {
    /** Bytes in the MB of every MB/s figure (OMB reports 2^20). */
    static final double MB = 1024.0 * 1024.0;

    private final Recorder publishLatencyMicros = new Recorder(3);
    private final Recorder publishDelayMicros = new Recorder(3);
    private final Recorder e2eLatencyMillis = new Recorder(3);
    private final Recorder commitLatencyMicros = new Recorder(3);
    private final Recorder redeliveryLatencyMicros = new Recorder(3);
    private final LongAdder releasedMsgs = new LongAdder();
    private final LongAdder redeliveredMsgs = new LongAdder();
    private final LongAdder otherRedeliveries = new LongAdder();
    private final LongAdder committedTxns = new LongAdder();
    private final LongAdder abortedTxns = new LongAdder();
    private final LongAdder sentMsgs = new LongAdder();
    private final LongAdder sentBytes = new LongAdder();
    private final LongAdder sendErrors = new LongAdder();
    private final LongAdder receivedMsgs = new LongAdder();
    private final LongAdder receivedBytes = new LongAdder();

    // Guarded by this.
    private final List<Window> open = new ArrayList<>();
    private long lastSent;
    private long lastSentBytes;
    private long lastErrors;
    private long lastReceived;
    private long lastReceivedBytes;
    private long lastCommitted;
    private long lastAborted;
    private long lastReleased;
    private long lastRedelivered;
    private long lastOtherRedeliveries;
    private Histogram publishRecycle;
    private Histogram delayRecycle;
    private Histogram e2eRecycle;
    private Histogram commitRecycle;
    private Histogram redeliveryRecycle;

    /** A send was acknowledged {@code latencyMicros} after the send call. */
    void sent(int bytes, long latencyMicros) {
        publishLatencyMicros.recordValue(Math.max(0, latencyMicros));
        sentBytes.add(bytes);
        sentMsgs.increment();
    }

    /**
     * A transactional send was acknowledged {@code latencyMicros} after the send call. It counts
     * as published only when its transaction commits ({@link #committed}).
     */
    void acked(long latencyMicros) {
        publishLatencyMicros.recordValue(Math.max(0, latencyMicros));
    }

    /**
     * A transaction of {@code msgs} messages ({@code bytes} in all) committed; the commit call
     * took {@code commitMicros}. Its messages count as published now: a read_committed consumer
     * sees them only from here on.
     */
    void committed(int msgs, long bytes, long commitMicros) {
        commitLatencyMicros.recordValue(Math.max(0, commitMicros));
        sentBytes.add(bytes);
        sentMsgs.add(msgs);
        committedTxns.increment();
    }

    /** A transaction did not commit: its {@code msgs} messages count as send errors. */
    void aborted(int msgs) {
        abortedTxns.increment();
        sendErrors.add(msgs);
    }

    /** The send call happened {@code delayMicros} after the pacer's intended time. */
    void sendDelay(long delayMicros) {
        publishDelayMicros.recordValue(Math.max(0, delayMicros));
    }

    void sendFailed() {
        sendErrors.increment();
    }

    /** A record arrived {@code e2eMillis} after its timestamp (negative values, from clock steps, count as 0). */
    void received(int bytes, long e2eMillis) {
        e2eLatencyMillis.recordValue(Math.max(0, e2eMillis));
        receivedBytes.add(bytes);
        receivedMsgs.increment();
    }

    /**
     * A share consumer accepted a record it received again (after a release or a lost lock): it counts as
     * consumed once, without an end-to-end sample (its latency includes the redelivery).
     */
    void receivedAgain(int bytes) {
        receivedBytes.add(bytes);
        receivedMsgs.increment();
    }

    /** A share consumer released a record on its first delivery, for the broker to deliver again. */
    void released() {
        releasedMsgs.increment();
    }

    /** A record released by a share consumer arrived again {@code latencyMicros} after its release. */
    void redelivered(long latencyMicros) {
        redeliveryLatencyMicros.recordValue(Math.max(0, latencyMicros));
        redeliveredMsgs.increment();
    }

    /** A record arrived again that no consumer of this run released (its lock timed out, its member left). */
    void redeliveredUnreleased() {
        otherRedeliveries.increment();
    }

    long totalReleased() {
        return releasedMsgs.sum();
    }

    long totalRedelivered() {
        return redeliveredMsgs.sum();
    }

    long totalSent() {
        return sentMsgs.sum();
    }

    long totalReceived() {
        return receivedMsgs.sum();
    }

    long totalErrors() {
        return sendErrors.sum();
    }

    long totalCommittedTxns() {
        return committedTxns.sum();
    }

    long totalAbortedTxns() {
        return abortedTxns.sum();
    }

    /** Opens a window starting now. */
    synchronized Window open() {
        sample();
        Window w = new Window(System.nanoTime());
        open.add(w);
        return w;
    }

    /** Closes {@code w} with what was recorded up to now, and returns it (read-only from here). */
    synchronized Window close(Window w) {
        sample();
        open.remove(w);
        return w;
    }

    /**
     * Closes {@code w} and opens its successor at the same instant, so consecutive windows (the
     * intervals of progress lines) leave no gap between them.
     */
    synchronized Window roll(Window w) {
        sample();
        open.remove(w);
        Window next = new Window(System.nanoTime());
        open.add(next);
        return next;
    }

    private void sample() {
        long now = System.nanoTime();
        publishRecycle = publishLatencyMicros.getIntervalHistogram(publishRecycle);
        delayRecycle = publishDelayMicros.getIntervalHistogram(delayRecycle);
        e2eRecycle = e2eLatencyMillis.getIntervalHistogram(e2eRecycle);
        commitRecycle = commitLatencyMicros.getIntervalHistogram(commitRecycle);
        redeliveryRecycle = redeliveryLatencyMicros.getIntervalHistogram(redeliveryRecycle);
        long released = releasedMsgs.sum();
        long redelivered = redeliveredMsgs.sum();
        long other = otherRedeliveries.sum();
        long committed = committedTxns.sum();
        long aborted = abortedTxns.sum();
        long sent = sentMsgs.sum();
        long sentB = sentBytes.sum();
        long errors = sendErrors.sum();
        long received = receivedMsgs.sum();
        long receivedB = receivedBytes.sum();
        for (Window w : open) {
            w.sentMsgs += sent - lastSent;
            w.sentBytes += sentB - lastSentBytes;
            w.sendErrors += errors - lastErrors;
            w.receivedMsgs += received - lastReceived;
            w.receivedBytes += receivedB - lastReceivedBytes;
            w.publishLatencyMicros.add(publishRecycle);
            w.publishDelayMicros.add(delayRecycle);
            w.e2eLatencyMillis.add(e2eRecycle);
            w.commitLatencyMicros.add(commitRecycle);
            w.committedTxns += committed - lastCommitted;
            w.abortedTxns += aborted - lastAborted;
            w.redeliveryLatencyMicros.add(redeliveryRecycle);
            w.releasedMsgs += released - lastReleased;
            w.redeliveredMsgs += redelivered - lastRedelivered;
            w.otherRedeliveries += other - lastOtherRedeliveries;
            w.extendTo(now);
        }
        lastSent = sent;
        lastSentBytes = sentB;
        lastErrors = errors;
        lastReceived = received;
        lastReceivedBytes = receivedB;
        lastCommitted = committed;
        lastAborted = aborted;
        lastReleased = released;
        lastRedelivered = redelivered;
        lastOtherRedeliveries = other;
    }
}
