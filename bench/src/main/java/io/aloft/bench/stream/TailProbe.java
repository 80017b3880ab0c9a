package io.aloft.bench.stream;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Part 3: append latency of a tail writer at a fixed rate, alone and under load.
 *
 * <p>Open loop: the i-th append is due at {@code start + i * period} and its latency is measured
 * from that due time, not from when the call was made, so an append that blocks the sender (or a
 * sender that falls behind) shows up in the numbers instead of silently lowering the rate
 * (coordinated omission).
 */
final class TailProbe {
    /** Latency percentiles in µs, the load actually achieved, and what ran beside it. */
    record Phase(String name, long count, long errors, double p50Us, double p99Us, double p999Us, double maxUs,
            double loadWriteMiBps, double loadReadMiBps, long putsDuring) {
    }

    private static final long HIGHEST_NS = 60_000_000_000L;

    private TailProbe() {
    }

    /**
     * Appends {@code batchBytes} batches to {@code tail} at {@code ratePerSecond} for
     * {@code seconds}, recording latency from each append's due time.
     */
    static Histogram run(Stream tail, int ratePerSecond, int batchBytes, double seconds, AtomicLong errors)
            throws InterruptedException {
        Recorder recorder = new Recorder(HIGHEST_NS, 3);
        ByteBuffer payload = ByteBuffer.allocate(batchBytes);
        long period = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        long total = (long) (seconds * ratePerSecond);
        Semaphore outstanding = new Semaphore(0);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        for (long i = 0; i < total; i++) {
            long due = start + i * period;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait); // pacing the open loop
            }
            CompletableFuture<Long> f;
            try {
                f = tail.append(payload.duplicate(), 1);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((offset, failure) -> {
                if (failure != null) {
                    errors.incrementAndGet();
                } else {
                    recorder.recordValue(Math.min(HIGHEST_NS, System.nanoTime() - due));
                }
                outstanding.release();
            });
        }
        if (!outstanding.tryAcquire((int) total, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("tail appends did not complete within 60 s");
        }
        return recorder.getIntervalHistogram();
    }

    static Phase phase(String name, Histogram h, long errors, double writeMiBps, double readMiBps, long puts) {
        return new Phase(name, h.getTotalCount(), errors, h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0,
                writeMiBps, readMiBps, puts);
    }

    /**
     * Background writer: {@code batchBytes} batches round-robin over {@code streams} at
     * {@code bytesPerSecond}, with a bounded number in flight, until stopped. Fixed rate rather
     * than flat out, so the comparison measures uploads running beside the tail writer, not a
     * saturated WAL queue in front of it.
     */
    static final class Writer extends Thread {
        private final List<Stream> streams;
        private final long bytesPerSecond;
        private final int batchBytes;
        private final Semaphore inflight = new Semaphore(256);
        final AtomicLong bytes = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean stopping;

        Writer(List<Stream> streams, long bytesPerSecond, int batchBytes) {
            super("bench-load-writer");
            setDaemon(true);
            this.streams = streams;
            this.bytesPerSecond = bytesPerSecond;
            this.batchBytes = batchBytes;
        }

        @Override
        public void run() {
            ByteBuffer payload = ByteBuffer.allocate(batchBytes);
            long period = TimeUnit.SECONDS.toNanos(1) * batchBytes / bytesPerSecond;
            long start = System.nanoTime();
            try {
                for (long i = 0; !stopping; i++) {
                    long wait = start + i * period - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    inflight.acquire();
                    streams.get((int) (i % streams.size())).append(payload.duplicate(), 1).whenComplete((o, t) -> {
                        if (t != null) {
                            failure.compareAndSet(null, t);
                        } else {
                            bytes.addAndGet(batchBytes);
                        }
                        inflight.release();
                    });
                }
                inflight.acquire(256); // drain
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void finish() throws InterruptedException {
            stopping = true;
            join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    /** Background catch-up reader: the stream sequentially from its start, 1 MiB fetches, over and over. */
    static final class Reader extends Thread {
        private final Stream stream;
        private final long end;
        final AtomicLong bytes = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean stopping;

        Reader(Stream stream, long end) {
            super("bench-catchup-reader");
            setDaemon(true);
            this.stream = stream;
            this.end = end;
        }

        @Override
        public void run() {
            long offset = stream.startOffset();
            try {
                while (!stopping) {
                    if (offset >= end) {
                        offset = stream.startOffset();
                    }
                    FetchResult r = stream.fetch(offset, end, 1 << 20).get();
                    List<StreamRecordBatch> batches = r.batches();
                    offset = batches.get(batches.size() - 1).lastOffsetExclusive();
                    bytes.addAndGet(r.sizeInBytes());
                }
            } catch (Exception e) {
                failure.set(e);
            }
        }

        void finish() throws InterruptedException {
            stopping = true;
            join(TimeUnit.SECONDS.toMillis(60));
        }
    }
}
