package io.aloft.bench.stream;

import io.aloft.bench.cluster.Machine;
import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.object.DataBlockIndex;
import io.aloft.stream.object.ObjectKeys;
import io.aloft.stream.object.ObjectReader;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStore;
import io.aloft.stream.store.StreamStoreConfig;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Stream store benchmark (issue 3), in one run against a versitygw this process starts on
 * loopback: (1) ingest throughput and S3 PUTs per GiB with default settings, (2) cold catch-up
 * read of one big stream against plain ranged GETs of the same object bytes (three rounds, the
 * median reported), (3) tail append latency alone and beside uploads and a catch-up read, (4) append
 * latency at a steady 10 MiB/s across seals of the log cache.
 *
 * <p>Usage: {@code StreamBenchmark --dir DIR --json-dir DIR [--quick]}. Progress on stderr, the
 * Markdown report on stdout, JSON and Markdown copies in the JSON directory.
 */
public final class StreamBenchmark {
    private static final long GIB = 1L << 30;
    private static final double MIB = 1 << 20;
    private static final int STREAMS = 16;
    private static final int BATCH = 4096;
    private static final int FETCH_BYTES = 1 << 20;
    private static final long WAL_CAPACITY = 2 * GIB;
    private static final int TAIL_RATE = 2000;
    private static final int STEADY_RATE = 2560;
    /**
     * Part 2 is repeated and the median reported: one round swung by ±30% on the shared machine.
     * More rounds with {@code BENCH_JAVA_OPTS=-Daloft.bench.catchUpRounds=N}.
     */
    private static final int CATCH_UP_ROUNDS = Integer.getInteger("aloft.bench.catchUpRounds", 3);

    private final boolean quick;
    private final Path work;
    private static final long START_NANOS = System.nanoTime();
    private final Report report;

    private StreamBenchmark(boolean quick, Path work, Report report) {
        this.quick = quick;
        this.work = work;
        this.report = report;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Path dir = Path.of("bench/target");
        Path jsonDir = Path.of("bench/target");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path binary = Gateway.findBinary();
        if (binary == null) {
            System.err.println("no versitygw: set ALOFT_VERSITYGW or run scripts/s3-server.sh versitygw");
            System.exit(2);
        }
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir.toAbsolutePath(), "stream-bench-");
        Report report = new Report(quick, Report.Host.probe(work), stamp,
                System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown"));
        report.loadAtStart = Machine.loadAverage();
        try (Gateway gateway = Gateway.start(binary, work)) {
            new StreamBenchmark(quick, work, report).run(gateway.createBucket("aloft-bench"));
        } finally {
            deleteTree(work);
        }
        report.loadAtEnd = Machine.loadAverage();
        report.elapsedSeconds = (System.nanoTime() - START_NANOS) / 1e9;
        String markdown = report.markdown();
        System.out.print(markdown);
        Files.createDirectories(jsonDir);
        Path json = jsonDir.resolve("stream-bench-" + stamp + ".json");
        Files.writeString(json, report.json());
        Files.writeString(jsonDir.resolve("stream-bench-" + stamp + ".md"), markdown);
        progress("done in %.0f s; results in %s (and .md)", report.elapsedSeconds, json.toAbsolutePath());
        System.exit(0); // the SDK's and the store's non-daemon threads must not keep the JVM up
    }

    private void run(String url) throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).build(); // defaults: what is being measured
        report.config = config;
        report.walCapacity = WAL_CAPACITY;
        Path walPath = work.resolve("stream.wal");
        List<Long> ids = new ArrayList<>();
        try (ObjectStorage storage = ObjectStorages.open(url)) {
            try (WriteAheadLog wal = openWal(walPath); StreamStore store = StreamStore.open(config, wal, storage,
                    metadata)) {
                ingest(store, storage, ids);
            }
            // Part 2: each round on a fresh store (empty log and block caches), same metadata and objects.
            List<long[]> runs = streamRuns(ids.get(0), storage, metadata);
            warmUpGets(storage, runs);
            report.catchUpLoad = Machine.loadAverage();
            for (int round = 1; round <= CATCH_UP_ROUNDS; round++) {
                try (WriteAheadLog wal = openWal(walPath); StreamStore store = StreamStore.open(config, wal, storage,
                        metadata)) {
                    report.catchUps.add(catchUp(round, store.openStream(ids.get(0), 1 + round).get(), storage, runs));
                }
            }
            // Part 3 on a fresh store too.
            try (WriteAheadLog wal = openWal(walPath); StreamStore store = StreamStore.open(config, wal, storage,
                    metadata)) {
                List<Stream> streams = new ArrayList<>();
                for (long id : ids) {
                    streams.add(store.openStream(id, 2 + CATCH_UP_ROUNDS).get()); // each open fences the last
                }
                tail(store, storage, streams);
                acrossSeals(store, storage);
            }
        }
    }

    private static WriteAheadLog openWal(Path path) throws IOException {
        return BlockDeviceWal.open(WalConfig.builder().path(path).capacityBytes(WAL_CAPACITY).build());
    }

    /**
     * Part 1. Every other batch goes to stream 0 (half the data: the big stream part 2 reads),
     * the rest round-robin to the other 15, from one thread with a bounded number in flight.
     */
    private void ingest(StreamStore store, ObjectStorage storage, List<Long> ids) throws Exception {
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            Stream s = store.openStream(store.createStream().get(), 1).get();
            streams.add(s);
            ids.add(s.streamId());
        }
        long target = quick ? GIB / 2 : 2 * GIB;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(quick ? 30 : 150);
        long batches = target / BATCH;
        progress("part 1: ingesting %.2f GiB in %d B batches to %d streams", target / (double) GIB, BATCH, STREAMS);
        ByteBuffer payload = ByteBuffer.allocate(BATCH);
        for (int i = 0; i < BATCH; i++) {
            payload.put(i, (byte) (i * 31)); // not all zeros, in case anything along the way compresses
        }
        Semaphore inflight = new Semaphore(1024);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] before = counts(storage.stats());
        long start = System.nanoTime();
        long sent = 0;
        for (; sent < batches && System.nanoTime() < deadline && failure.get() == null; sent++) {
            Stream s = sent % 2 == 0 ? streams.get(0) : streams.get(1 + (int) ((sent / 2) % (STREAMS - 1)));
            inflight.acquire();
            s.append(payload.duplicate(), 1).whenComplete((o, t) -> {
                if (t != null) {
                    failure.compareAndSet(null, t);
                }
                inflight.release();
            });
            if (sent % (batches / 8) == 0 && sent > 0) {
                progress("  %.0f%% (%.0f MiB/s so far)", 100.0 * sent / batches,
                        sent * BATCH / MIB / ((System.nanoTime() - start) / 1e9));
            }
        }
        inflight.acquire(1024);
        long acked = System.nanoTime();
        if (failure.get() != null) {
            throw new IllegalStateException("append failed", failure.get());
        }
        store.flush().get(120, TimeUnit.SECONDS);
        long flushed = System.nanoTime();
        long[] after = counts(storage.stats());
        Report.Ingest r = new Report.Ingest();
        r.bytes = sent * BATCH;
        r.reachedTarget = sent == batches;
        r.ackSeconds = (acked - start) / 1e9;
        r.flushSeconds = (flushed - start) / 1e9;
        r.put = after[0] - before[0];
        r.parts = after[1] - before[1];
        r.complete = after[2] - before[2];
        r.create = after[3] - before[3];
        r.putBytes = after[4] - before[4];
        r.bigStreamBytes = (sent + 1) / 2 * BATCH;
        report.ingest = r;
        progress("  %.0f MiB in %.1f s (%.1f s with flush); %d PUT, %d parts, %d completes", r.bytes / MIB,
                r.ackSeconds, r.flushSeconds, r.put, r.parts, r.complete);
    }

    /**
     * Ranged GETs of 1, 4 and 16 MiB of the bytes after stream 0's run in each object (other
     * streams' blocks, not read by either measured read), so the S3 client's GET path is compiled
     * before either read is timed. Without it the store, measured first, paid for the JIT warm-up
     * of the response path the plain GETs then ran on.
     */
    private static void warmUpGets(ObjectStorage storage, List<long[]> runs) throws Exception {
        long start = System.nanoTime();
        long bytes = 0;
        for (long[] run : runs) {
            long at = run[2];
            for (long size : new long[] {1 << 20, 4 << 20, 16 << 20}) {
                long to = Math.min(run[3], at + size);
                if (at < to) {
                    bytes += storage.get(ObjectKeys.key(run[0]), at, to).get().remaining();
                }
                at = to;
            }
        }
        progress("  warm-up: %.0f MiB of other streams' bytes in %.2f s", bytes / MIB,
                (System.nanoTime() - start) / 1e9);
    }

    /** {PUT, MULTIPART_PART, MULTIPART_COMPLETE, MULTIPART_CREATE, bytes written}. */
    private static long[] counts(ObjectStorageStats s) {
        return new long[] {s.requests(Operation.PUT), s.requests(Operation.MULTIPART_PART),
            s.requests(Operation.MULTIPART_COMPLETE), s.requests(Operation.MULTIPART_CREATE),
            s.bytes(Operation.PUT) + s.bytes(Operation.MULTIPART_PART)};
    }

    /**
     * The object bytes part 2's baseline reads: in each object that holds the big stream, the run
     * of its data blocks (an object keeps a stream's blocks back to back), as {object id, start,
     * end, object size}. Reading whole objects instead would compare the store's rate with the
     * rate of twice the bytes (half of each object is other streams). Found with index reads
     * through readers of our own, not timed; the store's time includes its own index reads.
     */
    private static List<long[]> streamRuns(long streamId, ObjectStorage storage, MemoryStreamMetadata metadata)
            throws Exception {
        List<ObjectRef> refs = metadata.getObjects(streamId, 0, Long.MAX_VALUE, Integer.MAX_VALUE).get();
        List<long[]> runs = new ArrayList<>();
        for (ObjectRef ref : refs) {
            ObjectReader reader = ObjectReader.open(storage, ref.objectId(), ref.objectSize());
            List<DataBlockIndex> blocks = reader.find(streamId, ref.range().startOffset(),
                    ref.range().endOffset(), Long.MAX_VALUE).get();
            DataBlockIndex last = blocks.get(blocks.size() - 1);
            runs.add(new long[] {ref.objectId(), blocks.get(0).position(), last.position() + last.size(),
                ref.objectSize()});
        }
        return runs;
    }

    /**
     * Part 2, one round: the big stream read through a fresh store, then the same object bytes
     * with one plain ranged GET per object, one object after another. The store read comes first
     * so any versitygw page-cache warmth from this round favours the plain GETs, not the store.
     */
    private static Report.CatchUp catchUp(int round, Stream big, ObjectStorage storage, List<long[]> runs)
            throws Exception {
        long end = big.confirmOffset();
        progress("part 2, round %d: catch-up read of stream %d (%d batches), %d B fetches", round, big.streamId(),
                end, FETCH_BYTES);
        Report.CatchUp r = new Report.CatchUp();
        r.objects = runs.size();
        long getsBefore = storage.stats().requests(Operation.GET);
        long getBytesBefore = storage.stats().bytes(Operation.GET);
        long cpu = cpuNanos();
        long start = System.nanoTime();
        long offset = big.startOffset();
        while (offset < end) {
            FetchResult f = big.fetch(offset, end, FETCH_BYTES).get();
            List<StreamRecordBatch> b = f.batches();
            offset = b.get(b.size() - 1).lastOffsetExclusive();
            r.storeBytes += f.sizeInBytes();
            r.fetches++;
            if (f.cacheHit()) {
                r.cacheHits++;
            }
        }
        r.storeSeconds = (System.nanoTime() - start) / 1e9;
        r.storeCpuSeconds = (cpuNanos() - cpu) / 1e9;
        r.storeGets = storage.stats().requests(Operation.GET) - getsBefore;
        r.storeGetBytes = storage.stats().bytes(Operation.GET) - getBytesBefore;
        progress("  store: %.0f MiB in %.2f s, %d GETs", r.storeBytes / MIB, r.storeSeconds, r.storeGets);

        cpu = cpuNanos();
        start = System.nanoTime();
        for (long[] run : runs) {
            r.plainBytes += storage.get(ObjectKeys.key(run[0]), run[1], run[2]).get().remaining();
        }
        r.plainSeconds = (System.nanoTime() - start) / 1e9;
        r.plainCpuSeconds = (cpuNanos() - cpu) / 1e9;
        progress("  plain GETs: %d objects, %.0f MiB in %.2f s", r.objects, r.plainBytes / MIB, r.plainSeconds);
        return r;
    }

    /**
     * Part 3. Load phase: the other 15 streams written at half the rate part 1 reached (so
     * a seal goes up every second or two), and stream 0 read from its
     * start, both beside the tail writer.
     */
    private void tail(StreamStore store, ObjectStorage storage, List<Stream> streams) throws Exception {
        Stream tail = store.openStream(store.createStream().get(), 1).get();
        double seconds = quick ? 5 : 10;
        report.tailSeconds = seconds;
        progress("part 3: tail appends, %d/s of %d B, %.0f s alone", TAIL_RATE, BATCH, seconds);
        TailProbe.run(tail, TAIL_RATE, BATCH, 1, new AtomicLong()); // warm-up, discarded
        long puts0 = putRequests(storage.stats());
        AtomicLong errors = new AtomicLong();
        Histogram alone = TailProbe.run(tail, TAIL_RATE, BATCH, seconds, errors);
        report.alone = TailProbe.phase("alone", alone, errors.get(), 0, 0, putRequests(storage.stats()) - puts0);

        long loadRate = (long) Math.min(report.ingest.bytes / report.ingest.ackSeconds / 2, 512 * MIB);
        report.loadRate = loadRate;
        // The writer and the reader on their own first, to tell their effects apart; the target
        // compares the last phase, both together, with the tail writer alone.
        report.writerOnly = loadPhase("writer only", tail, storage, streams, seconds, true, false);
        report.readerOnly = loadPhase("reader only", tail, storage, streams, seconds, false, true);
        report.loaded = loadPhase("under load", tail, storage, streams, seconds, true, true);
        progress("  p99 alone %.0f µs, writer only %.0f µs, reader only %.0f µs, under load %.0f µs",
                report.alone.p99Us(), report.writerOnly.p99Us(), report.readerOnly.p99Us(), report.loaded.p99Us());
    }

    /**
     * Part 4. Appends at a steady {@value #STEADY_RATE} × 4 KiB/s (10 MiB/s, about OMB's 10,000
     * msg/s of 1 KiB) to a new stream for long enough that the log cache is sealed and uploaded at
     * least twice (by age, every 10 to 12.5 s with the default interval), after a flush so no
     * upload is in flight at the start.
     */
    private void acrossSeals(StreamStore store, ObjectStorage storage) throws Exception {
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        TailProbe.run(stream, STEADY_RATE, BATCH, 1, new AtomicLong()); // warm-up, discarded
        store.flush().get(120, TimeUnit.SECONDS);
        double seconds = quick ? 30 : 45;
        progress("part 4: %d appends/s of %d B for %.0f s across seals", STEADY_RATE, BATCH, seconds);
        report.steady = SealProbe.run(stream, storage.stats(), STEADY_RATE, BATCH, seconds);
        progress("  p99 %.0f µs (PUT in flight %.0f µs, none %.0f µs), %d PUTs, %.1f s with a PUT in flight",
                report.steady.all().p99Us(), report.steady.duringPut().p99Us(), report.steady.outsidePut().p99Us(),
                report.steady.puts(), report.steady.putSeconds());
    }

    /** One tail-latency phase beside the load writer and/or the catch-up reader. */
    private TailProbe.Phase loadPhase(String name, Stream tail, ObjectStorage storage, List<Stream> streams,
            double seconds, boolean write, boolean read) throws Exception {
        progress("  %s: %s%s", name, write ? String.format("writer %.0f MiB/s to 15 streams ", report.loadRate / MIB)
                : "", read ? "catch-up reader of stream 0" : "");
        TailProbe.Writer writer = write
                ? new TailProbe.Writer(streams.subList(1, streams.size()), report.loadRate, 16 * 1024) : null;
        TailProbe.Reader reader = read ? new TailProbe.Reader(streams.get(0), streams.get(0).confirmOffset()) : null;
        if (writer != null) {
            writer.start();
        }
        if (reader != null) {
            reader.start();
        }
        Thread.sleep(2000); // let the first uploads and reads start before measuring
        long puts1 = putRequests(storage.stats());
        long w0 = writer == null ? 0 : writer.bytes.get();
        long r0 = reader == null ? 0 : reader.bytes.get();
        long t0 = System.nanoTime();
        AtomicLong errors = new AtomicLong();
        Histogram h = TailProbe.run(tail, TAIL_RATE, BATCH, seconds, errors);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long w1 = writer == null ? 0 : writer.bytes.get();
        long r1 = reader == null ? 0 : reader.bytes.get();
        long puts2 = putRequests(storage.stats());
        if (writer != null) {
            writer.finish();
        }
        if (reader != null) {
            reader.finish();
        }
        Throwable failure = writer != null && writer.failure.get() != null ? writer.failure.get()
                : reader != null ? reader.failure.get() : null;
        if (failure != null) {
            throw new IllegalStateException("load failed", failure);
        }
        return TailProbe.phase(name, h, errors.get(), (w1 - w0) / MIB / elapsed, (r1 - r0) / MIB / elapsed,
                puts2 - puts1);
    }

    private static long putRequests(ObjectStorageStats s) {
        return s.requests(Operation.PUT) + s.requests(Operation.MULTIPART_PART)
                + s.requests(Operation.MULTIPART_COMPLETE);
    }


    /**
     * CPU time of this JVM (all threads, JIT and GC included): on a shared machine the wall time
     * of a read swings with other work, its CPU cost much less.
     */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static void progress(String format, Object... args) {
        System.err.printf("[%5.1fs] %s%n", (System.nanoTime() - START_NANOS) / 1e9, String.format(format, args));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
