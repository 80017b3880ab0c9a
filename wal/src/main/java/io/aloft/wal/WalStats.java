package io.aloft.wal;

import java.util.concurrent.atomic.LongAdder;

/** Running counters of one write-ahead log. Thread-safe. */
public final class WalStats {
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

    @Override
    public String toString() {
        return "appends=" + appends() + " appendBytes=" + appendBytes() + " writes=" + writes() + " writeBytes="
                + writeBytes() + " fullWaits=" + fullWaits() + " fullTimeouts=" + fullTimeouts() + " headerWrites="
                + headerWrites();
    }
}
