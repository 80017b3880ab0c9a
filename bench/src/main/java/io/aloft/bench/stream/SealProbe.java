package io.aloft.bench.stream;

import io.aloft.stream.Stream;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Part 4: append latency at a steady, modest rate across several seals of the log cache, split by
 * whether an upload PUT was in flight when the append was issued or completed.
 *
 * <p>A PUT counts as in flight from the request being counted (at the call) to its bytes being
 * counted (at completion), sampled every millisecond from the storage's statistics; seals go
 * one at a time at this rate. Open loop, as {@link TailProbe}: latency from each append's due time.
 * Single-threaded apart from the sampler, which only writes a volatile flag.
 */
final class SealProbe {
    record Result(TailProbe.Phase all, TailProbe.Phase duringPut, TailProbe.Phase outsidePut, double seconds,
            double putSeconds, long puts, int ratePerSecond, long gcCount, long gcMillis, long allocatedBytes) {
    }

    private static final long HIGHEST_NS = 60_000_000_000L;

    private SealProbe() {
    }

    static Result run(Stream stream, ObjectStorageStats stats, int ratePerSecond, int batchBytes, double seconds)
            throws InterruptedException {
        Recorder during = new Recorder(HIGHEST_NS, 3);
        Recorder outside = new Recorder(HIGHEST_NS, 3);
        AtomicLong errors = new AtomicLong();
        long puts0 = stats.requests(Operation.PUT);
        long[] gc0 = gc();
        long alloc0 = allocated();
        Sampler sampler = new Sampler(stats);
        sampler.start();
        ByteBuffer payload = ByteBuffer.allocate(batchBytes);
        long period = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        long total = (long) (seconds * ratePerSecond);
        Semaphore outstanding = new Semaphore(0);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        for (long i = 0; i < total; i++) {
            long due = start + i * period;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            boolean putAtIssue = sampler.uploading;
            CompletableFuture<Long> f;
            try {
                f = stream.append(payload.duplicate(), 1);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((offset, failure) -> {
                if (failure != null) {
                    errors.incrementAndGet();
                } else {
                    long latency = Math.min(HIGHEST_NS, System.nanoTime() - due);
                    (putAtIssue || sampler.uploading ? during : outside).recordValue(latency);
                }
                outstanding.release();
            });
        }
        if (!outstanding.tryAcquire((int) total, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("appends did not complete within 60 s");
        }
        sampler.stopping = true;
        sampler.join();
        Histogram d = during.getIntervalHistogram();
        Histogram o = outside.getIntervalHistogram();
        Histogram all = new Histogram(HIGHEST_NS, 3);
        all.add(d);
        all.add(o);
        long puts = stats.requests(Operation.PUT) - puts0;
        long[] gc1 = gc();
        return new Result(TailProbe.phase("all", all, errors.get(), 0, 0, puts),
                TailProbe.phase("PUT in flight", d, 0, 0, 0, puts), TailProbe.phase("no PUT in flight", o, 0, 0, 0, 0),
                seconds, sampler.uploadingNanos / 1e9, puts, ratePerSecond, gc1[0] - gc0[0], gc1[1] - gc0[1],
                allocated() - alloc0);
    }

    /** {collections, milliseconds} of every collector so far. */
    private static long[] gc() {
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, bean.getCollectionCount());
            millis += Math.max(0, bean.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /**
     * Bytes allocated by every thread of the JVM so far, 0 if not measurable. Whole-JVM rather than
     * the upload thread's: where the S3 client's per-chunk work runs (its event loop, or the thread
     * handing it a chunk) differs between a whole-buffer and a streamed body.
     */
    private static long allocated() {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)) {
            return 0;
        }
        return Math.max(0, threads.getTotalThreadAllocatedBytes());
    }

    /** Tracks whether a PUT is in flight: started (requests counted) more often than completed (bytes counted). */
    private static final class Sampler extends Thread {
        private final ObjectStorageStats stats;
        volatile boolean uploading;
        volatile boolean stopping;
        long uploadingNanos;

        Sampler(ObjectStorageStats stats) {
            super("bench-put-sampler");
            setDaemon(true);
            this.stats = stats;
        }

        @Override
        public void run() {
            long completed = stats.requests(Operation.PUT); // none in flight at the start: the store was flushed
            long lastBytes = stats.bytes(Operation.PUT);
            long last = System.nanoTime();
            while (!stopping) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                long bytes = stats.bytes(Operation.PUT);
                if (bytes != lastBytes) {
                    completed++;
                    lastBytes = bytes;
                }
                long now = System.nanoTime();
                if (uploading) {
                    uploadingNanos += now - last;
                }
                last = now;
                uploading = stats.requests(Operation.PUT) > completed;
            }
        }
    }
}
