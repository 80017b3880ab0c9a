package io.aloft.wal;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * Running counters of one write-ahead log, and a hook for the latency of each append. Thread-safe.
 *
 * <p>The latency hook is a plain {@link LongConsumer} rather than a metrics library type: the WAL
 * depends on nothing, and whoever runs it (the broker binds it to a Micrometer timer) decides
 * where the measurements go. Until {@link #appendLatencyTo} is called they go nowhere.
 */
public final class WalStats {
    private static final LongConsumer NONE = nanos -> { };

    /** Records accepted by append. */
    final LongAdder appends = new LongAdder();
    /** Body bytes of accepted records. */
    final LongAdder appendBytes = new LongAdder();
    /** Writes issued to the device (each one group commit). */
    final LongAdder writes = new LongAdder();
    /** Bytes written to the device by those writes, headers and padding included. */
    final LongAdder writeBytes = new LongAdder();
    /** Appends that had to wait because the ring was full. */
    final LongAdder fullWaits = new LongAdder();
    /** Appends that failed because the ring stayed full past the timeout. */
    final LongAdder fullTimeouts = new LongAdder();
    /** Header (trim point) writes. */
    final LongAdder headerWrites = new LongAdder();
    /** Nanoseconds appends spent waiting for room (placed or timed out), all appends together. */
    final LongAdder fullWaitNanos = new LongAdder();
    /** Told, on the log's completion thread, each durable append's latency in nanoseconds. */
    private volatile LongConsumer appendLatency = NONE;

    /**
     * Sends each durable append's latency (from the {@code append} call until its future completes
     * successfully, waits for room included) to {@code recorder}, in nanoseconds, from the log's
     * completion thread; {@code recorder} must be quick and must not block. Replaces any earlier one.
     */
    public void appendLatencyTo(LongConsumer recorder) {
        this.appendLatency = recorder == null ? NONE : recorder;
    }

    /** Records one durable append's latency (for implementations outside this package). */
    public void recordAppendLatency(long nanos) {
        appendLatency.accept(nanos);
    }

    /** Counts time an append spent waiting for room in a full log. */
    void recordFullWait(long nanos) {
        fullWaitNanos.add(nanos);
    }

    /** Counts one accepted append of {@code bytes} body bytes (for implementations outside this package). */
    public void recordAppend(long bytes) {
        appends.increment();
        appendBytes.add(bytes);
    }

    /** Counts one write of {@code bytes} to the log's medium (one group commit). */
    public void recordWrite(long bytes) {
        writes.increment();
        writeBytes.add(bytes);
    }

    /** Counts one write of the trim point. */
    public void recordHeaderWrite() {
        headerWrites.increment();
    }

    public long appends() {
        return appends.sum();
    }

    public long appendBytes() {
        return appendBytes.sum();
    }

    public long writes() {
        return writes.sum();
    }

    public long writeBytes() {
        return writeBytes.sum();
    }

    public long fullWaits() {
        return fullWaits.sum();
    }

    public long fullTimeouts() {
        return fullTimeouts.sum();
    }

    public long headerWrites() {
        return headerWrites.sum();
    }

    /** Nanoseconds appends spent waiting for room, all together (placed or timed out). */
    public long fullWaitNanos() {
        return fullWaitNanos.sum();
    }

    @Override
    public String toString() {
        return "appends=" + appends() + " appendBytes=" + appendBytes() + " writes=" + writes() + " writeBytes="
                + writeBytes() + " fullWaits=" + fullWaits() + " fullTimeouts=" + fullTimeouts() + " headerWrites="
                + headerWrites() + " fullWaitMs=" + fullWaitNanos() / 1_000_000;
    }
}
