package io.aloft.bench.controller;

import io.aloft.bench.cluster.Machine;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Controller benchmark (issue 4), in one run on loopback: object-commit throughput and latency
 * with 1 and 3 voters, at one commit in flight and at many; then the size of a snapshot holding
 * 200k committed objects and the time a voter takes to restart from it.
 *
 * <p>A commit here is what a broker sends after each upload: {@code commitStreamSetObject} with
 * ranges of 4 streams, replicated to a majority and applied before it is acknowledged.
 *
 * <p>Usage: {@code ControllerBenchmark --dir DIR --json-dir DIR [--quick]}. Progress on stderr,
 * Markdown on stdout, a copy in the JSON directory.
 */
public final class ControllerBenchmark {
    private static final int STREAMS_PER_COMMIT = 4;
    private static final int SNAPSHOT_OBJECTS = 200_000;
    /** Stream objects per command when building the 200k-object state (what one upload of many big streams commits). */
    private static final int OBJECTS_PER_BULK_COMMIT = 100;
    private static final int BULK_PARALLEL = 16;

    private final boolean quick;
    private final Path work;
    private final StringBuilder md = new StringBuilder();
    private final StringBuilder json = new StringBuilder("{\n");

    private ControllerBenchmark(boolean quick, Path work) {
        this.quick = quick;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of("bench/target");
        Path jsonDir = dir;
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                case "--quick" -> quick = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path work = Files.createTempDirectory(dir, "controller-bench-");
        try {
            new ControllerBenchmark(quick, work).run(jsonDir);
        } finally {
            deleteTree(work);
        }
        System.exit(0); // Ratis leaves non-daemon threads behind
    }

    private void run(Path jsonDir) throws Exception {
        String rev = System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown");
        md.append("Measured ").append(Instant.now()).append(" with `scripts/bench-controller.sh`")
                .append(quick ? " --quick" : "").append(" (git ").append(rev).append("). ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, ")
                .append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.runtime.version"))
                .append(", load average at start ").append(Machine.loadAverage()).append(".\n\n");
        md.append("#### Object commits (commitStreamSetObject, 4 stream ranges each)\n\n")
                .append("| voters | commits in flight | commits/s | p50 ms | p99 ms | p99.9 ms | max ms | errors |\n")
                .append("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        json.append("  \"commits\": [\n");
        boolean first = true;
        for (int voters : new int[] {1, 3}) {
            try (LocalQuorum quorum = new LocalQuorum(work.resolve("q" + voters), voters, 100_000)) {
                quorum.awaitLeader();
                for (int inFlight : new int[] {1, 16, 64}) {
                    Result r = commitLoad(quorum, inFlight);
                    md.append(String.format(Locale.ROOT, "| %d | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %d |%n",
                            voters, inFlight, r.perSecond, ms(r.latency.getValueAtPercentile(50)),
                            ms(r.latency.getValueAtPercentile(99)), ms(r.latency.getValueAtPercentile(99.9)),
                            ms(r.latency.getMaxValue()), r.errors));
                    json.append(first ? "" : ",\n").append(String.format(Locale.ROOT,
                            "    {\"voters\": %d, \"inFlight\": %d, \"perSecond\": %.1f, \"p50Ms\": %.3f, "
                                    + "\"p99Ms\": %.3f, \"p999Ms\": %.3f, \"maxMs\": %.3f, \"errors\": %d}",
                            voters, inFlight, r.perSecond, ms(r.latency.getValueAtPercentile(50)),
                            ms(r.latency.getValueAtPercentile(99)), ms(r.latency.getValueAtPercentile(99.9)),
                            ms(r.latency.getMaxValue()), r.errors));
                    first = false;
                }
            }
        }
        json.append("\n  ],\n");
        snapshotAndRestart();
        json.append("}\n");
        String stamp = Instant.now().toString().replace(':', '-');
        Files.createDirectories(jsonDir);
        Files.writeString(jsonDir.resolve("controller-bench-" + stamp + ".json"), json);
        Files.writeString(jsonDir.resolve("controller-bench-" + stamp + ".md"), md);
        System.out.print(md);
    }

    private record Result(double perSecond, Histogram latency, long errors) {
    }

    /** Closed loop: {@code inFlight} commits outstanding at all times, each on its own streams. */
    private Result commitLoad(LocalQuorum quorum, int inFlight) throws Exception {
        long warmupNanos = TimeUnit.SECONDS.toNanos(quick ? 2 : 5);
        long measureNanos = TimeUnit.SECONDS.toNanos(quick ? 5 : 20);
        progress("commits: " + inFlight + " in flight");
        try (ControllerClient client = quorum.newClient()) {
            ControllerStreamMetadata metadata = new ControllerStreamMetadata(client);
            List<Writer> writers = new ArrayList<>();
            for (int w = 0; w < inFlight; w++) {
                writers.add(new Writer(metadata));
            }
            for (Writer w : writers) {
                w.setUp();
            }
            Recorder recorder = new Recorder(3);
            AtomicLong errors = new AtomicLong();
            // A writer's commits continue its own streams, so it has one commit in flight at a time.
            ArrayBlockingQueue<Writer> idle = new ArrayBlockingQueue<>(inFlight, false, writers);
            long start = System.nanoTime();
            long measureFrom = start + warmupNanos;
            long end = measureFrom + measureNanos;
            AtomicLong measured = new AtomicLong();
            while (System.nanoTime() < end) {
                Writer w = idle.take();
                long t0 = System.nanoTime();
                w.commit().whenComplete((v, e) -> {
                    long t1 = System.nanoTime();
                    if (e != null) {
                        errors.incrementAndGet();
                    } else if (t0 >= measureFrom && t1 <= end) {
                        recorder.recordValue(t1 - t0);
                        measured.incrementAndGet();
                    }
                    idle.add(w);
                });
            }
            while (idle.size() < inFlight) {
                Thread.sleep(1);
            }
            Histogram h = recorder.getIntervalHistogram();
            return new Result(measured.get() / (measureNanos / 1e9), h, errors.get());
        }
    }

    /** One writer: its own streams (so ranges stay contiguous without coordination) and prepared ids. */
    private static final class Writer {
        private final ControllerStreamMetadata metadata;
        private final long[] streams = new long[STREAMS_PER_COMMIT];
        private final long[] ends = new long[STREAMS_PER_COMMIT];
        private long nextId;
        private long lastId = -1;

        Writer(ControllerStreamMetadata metadata) {
            this.metadata = metadata;
        }

        void setUp() throws Exception {
            for (int i = 0; i < streams.length; i++) {
                streams[i] = metadata.createStream(new CreateStreamRequest(1)).get();
                metadata.openStream(new OpenStreamRequest(streams[i], 1, 1)).get();
            }
        }

        /** The next commit of this writer; called only when its previous one completed. */
        CompletableFuture<Void> commit() throws Exception {
            if (nextId > lastId) {
                // Ids in bulk, as a broker does for its uploads: not part of the measured commit.
                nextId = metadata.prepareObjects(new PrepareObjectsRequest(1, 10_000, 3_600_000,
                        System.currentTimeMillis())).get();
                lastId = nextId + 9_999;
            }
            List<StreamRange> ranges = new ArrayList<>(streams.length);
            for (int i = 0; i < streams.length; i++) {
                ranges.add(new StreamRange(streams[i], 1, ends[i], ends[i] + 100));
                ends[i] += 100;
            }
            return metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(1, nextId++, 8 << 20, ranges,
                    List.of(), List.of(), System.currentTimeMillis()));
        }
    }

    /** 200k committed objects on one voter: snapshot size, snapshot time, and restart time. */
    private void snapshotAndRestart() throws Exception {
        progress("building " + SNAPSHOT_OBJECTS + " committed objects");
        Path dir = work.resolve("snapshot");
        long objects = 0;
        long buildNanos;
        try (LocalQuorum quorum = new LocalQuorum(dir, 1, 1_000_000)) {
            quorum.awaitLeader();
            long t0 = System.nanoTime();
            try (ControllerClient client = quorum.newClient()) {
                ControllerStreamMetadata metadata = new ControllerStreamMetadata(client);
                // BULK_PARALLEL commits in flight, each on its own group of streams: a group's commits
                // must apply in order (each continues its streams), and commits sent at once may not.
                long[][] groups = new long[BULK_PARALLEL][OBJECTS_PER_BULK_COMMIT];
                for (long[] group : groups) {
                    for (int i = 0; i < group.length; i++) {
                        group[i] = metadata.createStream(new CreateStreamRequest(1)).get();
                        metadata.openStream(new OpenStreamRequest(group[i], 1, 1)).get();
                    }
                }
                long end = 0;
                while (objects < SNAPSHOT_OBJECTS) {
                    List<CompletableFuture<Void>> round = new ArrayList<>();
                    for (long[] group : groups) {
                        if (objects >= SNAPSHOT_OBJECTS) {
                            break;
                        }
                        long firstId = metadata.prepareObjects(new PrepareObjectsRequest(1, OBJECTS_PER_BULK_COMMIT,
                                3_600_000, System.currentTimeMillis())).get();
                        List<StreamObjectSpec> specs = new ArrayList<>(OBJECTS_PER_BULK_COMMIT);
                        for (int i = 0; i < OBJECTS_PER_BULK_COMMIT; i++) {
                            specs.add(new StreamObjectSpec(firstId + i, 16 << 20, new StreamRange(group[i], 1, end,
                                    end + 1000)));
                        }
                        // One upload that produced only stream objects (no stream-set object: id -1).
                        round.add(metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(1, -1, 0,
                                List.of(), specs, List.of(), System.currentTimeMillis())));
                        objects += OBJECTS_PER_BULK_COMMIT;
                    }
                    CompletableFuture.allOf(round.toArray(CompletableFuture[]::new)).get();
                    end += 1000;
                }
            }
            buildNanos = System.nanoTime() - t0;
            progress("snapshot");
            long s0 = System.nanoTime();
            long index = quorum.server(1).takeSnapshot();
            long snapshotNanos = System.nanoTime() - s0;
            long size = snapshotBytes(dir);
            quorum.stop(1);
            progress("restart");
            long r0 = System.nanoTime();
            quorum.start(1);
            quorum.awaitLeader();
            while (quorum.server(1).lastAppliedIndex() < index) {
                Thread.sleep(1);
            }
            long restartNanos = System.nanoTime() - r0;
            md.append("\n#### Snapshot and restart at ").append(SNAPSHOT_OBJECTS).append(" committed objects (1 voter)\n\n")
                    .append("| objects | build (commits of 100 stream objects) s | snapshot bytes | take snapshot ms | "
                            + "restart to leader with state applied ms |\n|---:|---:|---:|---:|---:|\n")
                    .append(String.format(Locale.ROOT, "| %d | %.1f | %d | %.0f | %.0f |%n", objects, buildNanos / 1e9,
                            size, snapshotNanos / 1e6, restartNanos / 1e6));
            json.append(String.format(Locale.ROOT, "  \"snapshot\": {\"objects\": %d, \"bytes\": %d, \"takeMs\": %.1f, "
                    + "\"restartMs\": %.1f, \"index\": %d}%n", objects, size, snapshotNanos / 1e6, restartNanos / 1e6,
                    index));
        } catch (StreamMetadataException e) {
            throw new IllegalStateException("building the snapshot state failed", e);
        }
    }

    /** The newest snapshot file's size. */
    private static long snapshotBytes(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("snapshot.")
                            && !p.getFileName().toString().endsWith(".md5"))
                    .max(Comparator.comparingLong(p -> p.toFile().lastModified()))
                    .map(p -> p.toFile().length()).orElse(-1L);
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }


    private static void progress(String what) {
        System.err.println("[controller-bench] " + what);
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
