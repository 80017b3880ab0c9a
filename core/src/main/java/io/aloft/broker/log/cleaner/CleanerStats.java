package io.aloft.broker.log.cleaner;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of the log cleaner since the broker started, for tests, the benchmark and metrics.
 *
 * <p>Thread-safe.
 */
public final class CleanerStats {
    private final AtomicLong cleanings = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong bytesBefore = new AtomicLong();
    private final AtomicLong bytesAfter = new AtomicLong();
    private final AtomicLong recordsIn = new AtomicLong();
    private final AtomicLong recordsOut = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong mapBytes = new AtomicLong();

    void cleaned(RangeCleaner.Result r) {
        cleanings.incrementAndGet();
        bytesRead.addAndGet(r.bytesRead());
        bytesBefore.addAndGet(r.bytesInRange());
        bytesAfter.addAndGet(r.bytesWritten());
        recordsIn.addAndGet(r.recordsIn());
        recordsOut.addAndGet(r.recordsOut());
        nanos.addAndGet(r.nanos());
    }

    void failed() {
        failures.incrementAndGet();
    }

    void mapAllocated(long bytes) {
        mapBytes.addAndGet(bytes);
    }

    /** Cleanings committed. */
    public long cleanings() {
        return cleanings.get();
    }

    /** Cleanings that failed (retried later). */
    public long failures() {
        return failures.get();
    }

    /** Stored bytes read by cleanings (both passes). */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** Bytes of the ranges cleanings rewrote, before. */
    public long bytesBefore() {
        return bytesBefore.get();
    }

    /** Bytes of the ranges cleanings rewrote, after. */
    public long bytesAfter() {
        return bytesAfter.get();
    }

    public long recordsIn() {
        return recordsIn.get();
    }

    public long recordsOut() {
        return recordsOut.get();
    }

    /** Time spent cleaning, all threads together. */
    public long nanos() {
        return nanos.get();
    }

    /** Heap held by the key maps allocated so far. */
    public long mapBytes() {
        return mapBytes.get();
    }

    @Override
    public String toString() {
        return "CleanerStats{cleanings=" + cleanings() + ", failures=" + failures() + ", bytesRead=" + bytesRead()
                + ", bytesBefore=" + bytesBefore() + ", bytesAfter=" + bytesAfter() + ", recordsIn=" + recordsIn()
                + ", recordsOut=" + recordsOut() + ", ms=" + nanos() / 1_000_000 + ", mapBytes=" + mapBytes() + "}";
    }
}
