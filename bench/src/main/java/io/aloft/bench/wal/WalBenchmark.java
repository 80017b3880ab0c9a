package io.aloft.bench.wal;

import io.aloft.wal.WalConfig;
import io.aloft.wal.device.WalDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The WAL benchmark (a harness, not a test): in one run, on one file system, measures the device's
 * raw durable sequential write bandwidth, then the WAL's append throughput and latency over a grid
 * of record sizes and concurrent appenders, latency at half load (open loop), and a sweep of
 * {@code wal.max.inflight.writes}. Prints progress to stderr, a Markdown report to stdout, and
 * writes the results as JSON (and the Markdown) next to it.
 *
 * <p>Cells run one at a time on the calling thread; every cell is bounded by its window, so a full
 * run takes about 3 minutes and {@code --quick} about 1.
 */
public final class WalBenchmark {
    private static final int[] RAW_SIZES = {4 << 10, 16 << 10, 256 << 10, 1 << 20};
    private static final int[] RECORD_SIZES = {1 << 10, 16 << 10, 256 << 10};
    private static final int[] APPENDERS = {1, 8, 64};
    private static final int[] INFLIGHT_SWEEP = {1, 2, 4};
    private static final int HALF_LOAD_RECORD = 16 << 10;
    private static final int HALF_LOAD_APPENDERS = 64;

    private final BenchOptions options;
    private final long startNanos = System.nanoTime();

    private WalBenchmark(BenchOptions options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        new WalBenchmark(options).run();
    }

    private void run() throws IOException, InterruptedException {
        Files.createDirectories(options.dir());
        Path work = Files.createTempDirectory(options.dir(), "aloft-wal-bench-");
        // Interrupted runs (Ctrl-C) must not leave 2 GiB behind either.
        Thread cleanup = new Thread(() -> deleteTree(work), "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        MachineInfo machine = MachineInfo.probe(work);
        progress("machine: %d CPUs, %s RAM, kernel %s, %s on %s, %s, load %s", machine.cpus(),
                MarkdownReport.size(machine.memoryBytes()), machine.kernel(), machine.fsType(), machine.fsDevice(),
                machine.jdk(), machine.loadAverage());
        progress("files in %s (deleted at the end)", work.toAbsolutePath());
        if (options.cell() != null) {
            runOneCell(work, options.cell(), machine.fsDevice());
            return;
        }

        List<RawDirectWrite.Result> raw = new ArrayList<>();
        FioProbe.Result fio;
        List<WalLoad.ClosedResult> grid = new ArrayList<>();
        List<WalLoad.ClosedResult> sweep = new ArrayList<>();
        WalLoad.OpenResult halfLoad;
        try {
            Path rawFile = work.resolve("raw.dat");
            progress("preallocating %s raw file", MarkdownReport.size(options.capacity()));
            WalDevice.preallocate(rawFile, options.capacity());
            RawDirectWrite rawWrite = new RawDirectWrite(rawFile, options.capacity(), machine.fsDevice());
            for (int size : RAW_SIZES) {
                raw.add(progress(rawWrite.run(size, 1, options.rawWindow())));
            }
            raw.add(progress(rawWrite.run(1 << 20, 2, options.rawWindow())));
            // Not asked for, but the size and depth the WAL's 16 KiB group commits actually issue.
            raw.add(progress(rawWrite.run(256 << 10, 2, options.rawWindow())));
            progress("fio ...");
            fio = FioProbe.run(rawFile, options.capacity(), options.fioSeconds());
            progress("fio: %s", fio.ran() ? MarkdownReport.f1(fio.mbPerSec()) + " MB/s" : fio.note());
            Files.delete(rawFile);

            Path walFile = work.resolve("wal.dat");
            progress("creating %s WAL file", MarkdownReport.size(options.capacity()));
            try (WalLoad load = WalLoad.open(walFile, options.capacity(), WalConfig.MAX_INFLIGHT.defaultValue(),
                    machine.fsDevice())) {
                for (int size : RECORD_SIZES) {
                    for (int appenders : APPENDERS) {
                        grid.add(progress(load.closedLoop(size, appenders, options.walWindow())));
                    }
                }
                WalLoad.ClosedResult full = grid.stream().filter(c -> c.recordSize() == HALF_LOAD_RECORD
                        && c.appenders() == HALF_LOAD_APPENDERS).findFirst().orElseThrow();
                double rate = full.appendsPerSec() / 2;
                progress("open loop: %s records at %.0f appends/s (half of %.0f)", MarkdownReport.size(
                        HALF_LOAD_RECORD), rate, full.appendsPerSec());
                halfLoad = progress(load.openLoop(HALF_LOAD_RECORD, rate, options.walWindow()));
            }
            for (int inflight : INFLIGHT_SWEEP) {
                try (WalLoad load = WalLoad.open(walFile, options.capacity(), inflight, machine.fsDevice())) {
                    sweep.add(progress(load.closedLoop(HALF_LOAD_RECORD, HALF_LOAD_APPENDERS, options.walWindow())));
                }
            }
        } finally {
            deleteTree(work);
        }

        Results results = new Results(date, System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown"),
                options.quick(), options.rawWindow(), options.walWindow(), machine, MachineInfo.currentLoadAverage(),
                options.capacity(), defaultMaxBatch(), WalConfig.MAX_INFLIGHT.defaultValue(), raw, fio, grid, halfLoad,
                sweep, (System.nanoTime() - startNanos) / 1e9);
        String markdown = MarkdownReport.render(results);
        Files.createDirectories(options.jsonDir());
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        Path json = options.jsonDir().resolve("wal-bench-" + stamp + ".json");
        Files.writeString(json, results.toJson());
        Files.writeString(options.jsonDir().resolve("wal-bench-" + stamp + ".md"), markdown);
        progress("done in %.0f s; results in %s (and .md)", results.elapsedSeconds(), json.toAbsolutePath());
        System.out.println();
        System.out.print(markdown);
        System.out.flush();
    }

    /** Runs one closed-loop cell for profiling (JFR, thread dumps) and prints only its progress line. */
    private void runOneCell(Path work, BenchOptions.Cell cell, String device) throws IOException,
            InterruptedException {
        try (WalLoad load = WalLoad.open(work.resolve("wal.dat"), options.capacity(), cell.inflight(), device)) {
            if (cell.open()) {
                progress(load.openLoop(cell.recordSize(), cell.load(), options.walWindow()));
            } else {
                progress(load.closedLoop(cell.recordSize(), cell.load(), options.walWindow()));
            }
        } finally {
            deleteTree(work);
        }
    }

    /** The batch size the WAL picks when unset (the benchmark never sets it). */
    private int defaultMaxBatch() {
        return WalConfig.builder().path(Path.of("unused")).capacityBytes(options.capacity()).build().maxBatchBytes();
    }

    private RawDirectWrite.Result progress(RawDirectWrite.Result r) {
        progress("raw %7s x %d thread(s): %8.1f MB/s %8.0f writes/s  p50 %6.0f µs  p99 %6.0f µs  cpu %.2f  %s",
                MarkdownReport.size(r.writeSize()), r.threads(), r.mbPerSec(), r.writesPerSec(),
                r.latency().p50Us(), r.latency().p99Us(), r.cpuCores(), disk(r.disk()));
        return r;
    }

    private WalLoad.ClosedResult progress(WalLoad.ClosedResult r) {
        progress("wal %7s x %2d appenders, inflight %d: %8.1f MB/s %8.0f appends/s  p50 %6.0f µs  p99 %6.0f µs  "
                + "p99.9 %6.0f µs  %.1f records/write  cpu %.2f  %s%s", MarkdownReport.size(r.recordSize()),
                r.appenders(), r.maxInflight(), r.mbPerSec(), r.appendsPerSec(), r.latency().p50Us(),
                r.latency().p99Us(), r.latency().p999Us(), r.wal().recordsPerWrite(), r.cpuCores(), disk(r.disk()),
                r.wal().fullWaits() > 0 ? "  (ring full " + r.wal().fullWaits() + " times)" : "");
        return r;
    }

    private WalLoad.OpenResult progress(WalLoad.OpenResult r) {
        progress("wal %7s open loop at %.0f/s, inflight %d: achieved %.0f/s  p50 %6.0f µs  p99 %6.0f µs  "
                + "p99.9 %6.0f µs  max %6.0f µs  (WAL-side p99 %.0f µs, send lag p99 %.0f µs)  %.1f records/write  "
                + "cpu %.2f  %s%s", MarkdownReport.size(r.recordSize()), r.targetRate(), r.maxInflight(),
                r.achievedRate(), r.latency().p50Us(), r.latency().p99Us(), r.latency().p999Us(), r.latency().maxUs(),
                r.service().p99Us(), r.sendLag().p99Us(), r.wal().recordsPerWrite(), r.cpuCores(), disk(r.disk()),
                r.aborted() == null ? "" : "  STOPPED: " + r.aborted());
        return r;
    }

    private static String disk(DiskStats.Activity d) {
        return String.format(Locale.ROOT, "disk busy %s%%, %s MB/s (all processes)",
                MarkdownReport.f0(d.utilization() * 100), MarkdownReport.f0(d.mbPerSec()));
    }

    private void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "[%5.1fs] %s%n", (System.nanoTime() - startNanos) / 1e9,
                String.format(Locale.ROOT, format, args));
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + dir, e);
        }
    }
}
