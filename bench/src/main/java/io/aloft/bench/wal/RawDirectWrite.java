package io.aloft.bench.wal;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;

/**
 * The device's durable sequential write bandwidth, measured the way the WAL writes: a
 * {@link FileChannel} opened with {@code O_DIRECT | O_DSYNC} (each write durable on return),
 * aligned buffers, positional writes over a preallocated file, wrapping at its end.
 *
 * <p>With several threads each owns a disjoint, contiguous region and writes it sequentially,
 * sharing one channel (as the WAL's I/O threads do). Not thread-safe: run one cell at a time.
 */
final class RawDirectWrite {
    private static final int ALIGNMENT = 4096;

    /** Result of one cell. */
    record Result(int writeSize, int threads, double mbPerSec, double writesPerSec, Latency latency,
            double cpuCores, DiskStats.Activity disk) {
    }

    private final Path file;
    private final long fileSize;
    private final String device;

    /**
     * @param file an existing, preallocated (written, not sparse) file of {@code fileSize} bytes
     * @param device the block device holding it, for {@link DiskStats}
     */
    RawDirectWrite(Path file, long fileSize, String device) {
        this.file = file;
        this.fileSize = fileSize;
        this.device = device;
    }

    Result run(int writeSize, int threads, BenchOptions.Window window) throws IOException, InterruptedException {
        long region = fileSize / threads / writeSize * writeSize;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.DSYNC,
                ExtendedOpenOption.DIRECT)) {
            CellClock clock = new CellClock(window, device);
            List<Writer> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Writer w = new Writer(ch, writeSize, t * region, region, clock);
                w.setName("bench-raw-" + t);
                writers.add(w);
                w.start();
            }
            clock.awaitWindowStart();
            clock.awaitWindowEnd();
            Histogram all = Latency.newHistogram();
            long bytes = 0;
            for (Writer w : writers) {
                w.join();
                if (w.failure != null) {
                    throw new UncheckedIOException("raw write failed on " + file, w.failure);
                }
                all.add(w.histogram);
                bytes += w.bytes;
            }
            double secs = clock.windowSeconds();
            return new Result(writeSize, threads, bytes / secs / 1e6, all.getTotalCount() / secs, Latency.of(all),
                    clock.cpuCores(), clock.disk());
        }
    }

    /**
     * A 4 KiB-aligned direct buffer of exactly {@code size} random bytes (random so no layer below
     * can compress or skip zeros).
     */
    static ByteBuffer alignedRandom(int size) {
        int rounded = (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        // alignedSlice rounds the limit down too: over-allocate a whole block, then cut to size.
        ByteBuffer buf = ByteBuffer.allocateDirect(rounded + ALIGNMENT).alignedSlice(ALIGNMENT).slice(0, size);
        byte[] chunk = new byte[4096];
        ThreadLocalRandom.current().nextBytes(chunk);
        while (buf.hasRemaining()) {
            buf.put(chunk, 0, Math.min(chunk.length, buf.remaining()));
        }
        return buf.flip();
    }

    /** One thread writing its region sequentially until the window ends. */
    private static final class Writer extends Thread {
        private final FileChannel ch;
        private final ByteBuffer buf;
        private final long regionStart;
        private final long regionSize;
        private final CellClock clock;
        final Histogram histogram = Latency.newHistogram();
        long bytes;
        IOException failure;

        Writer(FileChannel ch, int writeSize, long regionStart, long regionSize, CellClock clock) {
            this.ch = ch;
            this.buf = alignedRandom(writeSize);
            this.regionStart = regionStart;
            this.regionSize = regionSize;
            this.clock = clock;
        }

        @Override
        public void run() {
            long offset = 0;
            int size = buf.capacity();
            try {
                while (true) {
                    long t0 = System.nanoTime();
                    buf.clear();
                    long pos = regionStart + offset;
                    while (buf.hasRemaining()) {
                        pos += ch.write(buf, pos);
                    }
                    long t1 = System.nanoTime();
                    if (clock.inWindow(t1)) {
                        histogram.recordValue(Math.min(t1 - t0, Latency.HIGHEST_NS));
                        bytes += size;
                    } else if (t1 >= clock.measureEnd) {
                        return;
                    }
                    offset += size;
                    if (offset + size > regionSize) {
                        offset = 0;
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
    }
}
