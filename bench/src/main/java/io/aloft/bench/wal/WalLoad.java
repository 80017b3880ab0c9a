package io.aloft.bench.wal;

import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WalStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Drives one open {@link BlockDeviceWal}: closed-loop appenders, or an open-loop fixed-rate
 * schedule, while a trimmer keeps the ring from filling.
 *
 * <p>The trimmer (thread {@code bench-wal-trimmer}) wakes every {@value #TRIM_PERIOD_MS} ms and
 * trims to the highest offset seen completed on its <em>previous</em> wake-up, so the ring holds
 * only the last few tens of milliseconds of records, as a broker that uploads promptly would.
 * Futures complete in offset order, so a completed offset has every record below it durable.
 *
 * <p>Not thread-safe: one cell at a time, driven from one thread.
 */
final class WalLoad implements AutoCloseable {
    private static final long TRIM_PERIOD_MS = 20;

    /** Counters of the WAL over a measured window. */
    record WalDelta(long appends, long appendBytes, long writes, long writeBytes, long fullWaits, long headerWrites) {
        static WalDelta of(WalStats s) {
            return new WalDelta(s.appends(), s.appendBytes(), s.writes(), s.writeBytes(), s.fullWaits(),
                    s.headerWrites());
        }

        WalDelta minus(WalDelta o) {
            return new WalDelta(appends - o.appends, appendBytes - o.appendBytes, writes - o.writes,
                    writeBytes - o.writeBytes, fullWaits - o.fullWaits, headerWrites - o.headerWrites);
        }

        /** Records per device write: the group commit factor. */
        double recordsPerWrite() {
            return writes == 0 ? Double.NaN : (double) appends / writes;
        }

        double avgWriteBytes() {
            return writes == 0 ? Double.NaN : (double) writeBytes / writes;
        }
    }

    /** One closed-loop cell. */
    record ClosedResult(int recordSize, int appenders, int maxInflight, double mbPerSec, double appendsPerSec,
            Latency latency, WalDelta wal, double deviceMbPerSec, double cpuCores, DiskStats.Activity disk) {
    }

    /**
     * One open-loop cell. {@code latency} runs from each append's intended send time (what a client
     * sees); {@code service} from the moment append was called (the WAL's share); {@code sendLag}
     * is how late the scheduler thread called it.
     */
    record OpenResult(int recordSize, int maxInflight, double targetRate, double achievedRate, double mbPerSec,
            Latency latency, Latency service, Latency sendLag, long maxOutstanding, WalDelta wal, double cpuCores,
            DiskStats.Activity disk, String aborted) {
    }

    private final BlockDeviceWal wal;
    private final int maxInflight;
    private final String device;
    private final LongAccumulator completed = new LongAccumulator(Long::max, -1);
    private final AtomicReference<Throwable> trimFailure = new AtomicReference<>();
    private final Thread trimmer;
    private volatile boolean running = true;

    private WalLoad(BlockDeviceWal wal, int maxInflight, String device) {
        this.wal = wal;
        this.maxInflight = maxInflight;
        this.device = device;
        this.trimmer = new Thread(this::trimLoop, "bench-wal-trimmer");
        this.trimmer.setDaemon(true);
        this.trimmer.start();
    }

    /**
     * Opens (creating on first use) the WAL at {@code path}, Direct IO, default batch size.
     *
     * @param device the block device holding {@code path}, for {@link DiskStats}
     */
    static WalLoad open(java.nio.file.Path path, long capacity, int maxInflight, String device) throws IOException {
        WalConfig config = WalConfig.builder().path(path).capacityBytes(capacity).directIo(true)
                .maxInflightWrites(maxInflight).build();
        BlockDeviceWal wal = BlockDeviceWal.open(config);
        if (!wal.directIo()) {
            wal.close();
            throw new IOException("the file system of " + path + " refused Direct IO; the benchmark would not "
                    + "measure the WAL's real write path");
        }
        return new WalLoad(wal, maxInflight, device);
    }

    private void trimLoop() {
        long seen = -1;
        long trimmed = -1;
        while (running) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TRIM_PERIOD_MS));
            if (seen > trimmed) {
                wal.trim(seen).whenComplete((v, e) -> {
                    if (e != null) {
                        trimFailure.compareAndSet(null, e);
                    }
                });
                trimmed = seen;
            }
            seen = completed.get();
        }
    }

    ClosedResult closedLoop(int recordSize, int appenders, BenchOptions.Window window) throws InterruptedException {
        CellClock clock = new CellClock(window, device);
        List<Appender> threads = new ArrayList<>();
        for (int i = 0; i < appenders; i++) {
            Appender a = new Appender(recordSize, clock);
            a.setName("bench-appender-" + i);
            threads.add(a);
            a.start();
        }
        clock.awaitWindowStart();
        WalDelta s0 = WalDelta.of(wal.stats());
        clock.awaitWindowEnd();
        WalDelta delta = WalDelta.of(wal.stats()).minus(s0);
        Histogram all = Latency.newHistogram();
        long bytes = 0;
        for (Appender a : threads) {
            a.join();
            if (a.failure != null) {
                throw new IllegalStateException("append failed", a.failure);
            }
            all.add(a.histogram);
            bytes += a.bytes;
        }
        checkTrimmer();
        double secs = clock.windowSeconds();
        return new ClosedResult(recordSize, appenders, maxInflight, bytes / secs / 1e6, all.getTotalCount() / secs,
                Latency.of(all), delta, delta.writeBytes() / secs / 1e6, clock.cpuCores(), clock.disk());
    }

    /** A closed-loop appender: append, wait for durability, repeat, until the window ends. */
    private final class Appender extends Thread {
        private final ByteBuffer record;
        private final CellClock clock;
        final Histogram histogram = Latency.newHistogram();
        long bytes;
        Throwable failure;

        Appender(int recordSize, CellClock clock) {
            this.record = RawDirectWrite.alignedRandom(recordSize);
            this.clock = clock;
        }

        @Override
        public void run() {
            int size = record.remaining();
            try {
                while (true) {
                    long t0 = System.nanoTime();
                    long offset = wal.append(record).get();
                    long t1 = System.nanoTime();
                    completed.accumulate(offset);
                    if (clock.inWindow(t1)) {
                        histogram.recordValue(Math.min(t1 - t0, Latency.HIGHEST_NS));
                        bytes += size;
                    } else if (t1 >= clock.measureEnd) {
                        return;
                    }
                }
            } catch (ExecutionException e) {
                failure = e.getCause();
            } catch (InterruptedException e) {
                failure = e;
            }
        }
    }

    /**
     * Appends at a fixed rate from one scheduler thread ({@code bench-wal-scheduler}). Appends are
     * asynchronous, so the number outstanding is whatever the WAL needs (no thread pool caps it).
     * Each latency runs from the intended send time, so a scheduler or WAL stall shows up in the
     * percentiles instead of silently lowering the offered load (no coordinated omission).
     */
    OpenResult openLoop(int recordSize, double ratePerSec, BenchOptions.Window window) throws InterruptedException {
        CellClock clock = new CellClock(window, device);
        ByteBuffer record = RawDirectWrite.alignedRandom(recordSize);
        ConcurrentHistogram latency = new ConcurrentHistogram(Latency.HIGHEST_NS, 3);
        ConcurrentHistogram service = new ConcurrentHistogram(Latency.HIGHEST_NS, 3);
        Histogram sendLag = Latency.newHistogram();
        AtomicLong outstanding = new AtomicLong();
        LongAdder measured = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Beyond half a second of backlog the WAL is not keeping up: stop rather than pile up memory.
        long backlogLimit = Math.max(1000, (long) (ratePerSec / 2));
        long[] maxOutstanding = new long[1];
        String[] aborted = new String[1];
        Thread scheduler = new Thread(() -> {
            double periodNs = 1e9 / ratePerSec;
            for (long i = 0; failure.get() == null; i++) {
                long intended = clock.start + (long) (i * periodNs);
                if (intended >= clock.measureEnd) {
                    return;
                }
                long left;
                while ((left = intended - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(left); // no spinning: the 2 WAL threads need the cores
                }
                boolean inWindow = clock.inWindow(intended);
                long sent = System.nanoTime();
                if (inWindow) {
                    sendLag.recordValue(Math.min(sent - intended, Latency.HIGHEST_NS));
                }
                long n = outstanding.incrementAndGet();
                maxOutstanding[0] = Math.max(maxOutstanding[0], n);
                if (n > backlogLimit) {
                    aborted[0] = n + " appends outstanding: the WAL does not sustain " + Math.round(ratePerSec)
                            + "/s";
                    outstanding.decrementAndGet();
                    return;
                }
                wal.append(record).whenComplete((offset, e) -> {
                    long done = System.nanoTime();
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        completed.accumulate(offset);
                        if (inWindow) {
                            latency.recordValue(Math.min(done - intended, Latency.HIGHEST_NS));
                            service.recordValue(Math.min(done - sent, Latency.HIGHEST_NS));
                            measured.increment();
                        }
                    }
                    outstanding.decrementAndGet();
                });
            }
        }, "bench-wal-scheduler");
        scheduler.start();
        clock.awaitWindowStart();
        WalDelta s0 = WalDelta.of(wal.stats());
        clock.awaitWindowEnd();
        WalDelta delta = WalDelta.of(wal.stats()).minus(s0);
        scheduler.join();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (outstanding.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("append failed", failure.get());
        }
        checkTrimmer();
        double secs = clock.windowSeconds();
        double achieved = measured.sum() / secs;
        return new OpenResult(recordSize, maxInflight, ratePerSec, achieved, achieved * recordSize / 1e6,
                Latency.of(latency), Latency.of(service), Latency.of(sendLag), maxOutstanding[0], delta,
                clock.cpuCores(), clock.disk(), aborted[0]);
    }

    private void checkTrimmer() {
        if (trimFailure.get() != null) {
            throw new IllegalStateException("trim failed", trimFailure.get());
        }
    }

    /** Stops the trimmer, trims everything (so a reopen scans nothing) and closes the WAL. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(trimmer);
        boolean interrupted = false;
        try {
            trimmer.join();
            wal.trim(wal.nextOffset()).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("final trim failed", e);
        } finally {
            wal.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
