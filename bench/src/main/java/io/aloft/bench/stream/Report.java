package io.aloft.bench.stream;

import io.aloft.stream.store.StreamStoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Results of one run, filled in part by part, rendered as Markdown (stdout) and JSON (file).
 * Mutable and single-threaded: only the benchmark's main thread touches it.
 */
final class Report {
    private static final double MIB = 1 << 20;
    private static final double GIB = 1L << 30;

    /** Where the numbers were measured; fields the host does not expose read "unknown". */
    record Host(int cpus, String cpuModel, long memoryBytes, String kernel, String fsType, String jdk) {
        static Host probe(Path dir) {
            String model = "unknown";
            for (String line : lines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            long mem = -1;
            for (String line : lines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    mem = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
            String fs = "unknown";
            int best = -1;
            for (String line : lines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length >= 3 && dir.toAbsolutePath().startsWith(Path.of(f[1])) && f[1].length() > best) {
                    best = f[1].length();
                    fs = f[2] + " on " + f[0] + " (" + f[1] + ")";
                }
            }
            List<String> kernel = lines(Path.of("/proc/sys/kernel/osrelease"));
            return new Host(Runtime.getRuntime().availableProcessors(), model, mem,
                    kernel.isEmpty() ? "unknown" : kernel.get(0).trim(),
                    fs, System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        }

        private static List<String> lines(Path p) {
            try {
                return Files.readAllLines(p);
            } catch (IOException e) {
                return List.of();
            }
        }
    }

    static final class Ingest {
        long bytes;
        boolean reachedTarget;
        double ackSeconds;
        double flushSeconds;
        long put;
        long parts;
        long complete;
        long create;
        long putBytes;
        long bigStreamBytes;

        long putRequests() {
            return put + parts + complete;
        }

        double putsPerGib() {
            return putRequests() / (bytes / GIB);
        }
    }

    static final class CatchUp {
        long storeBytes;
        long fetches;
        long cacheHits;
        double storeSeconds;
        long storeGets;
        long storeGetBytes;
        int objects;
        long plainBytes;
        double plainSeconds;
        /** CPU time of the benchmark's JVM during each read (versitygw's not included). */
        double storeCpuSeconds;
        double plainCpuSeconds;

        /** Over the bytes the plain GETs read (the stream's blocks), the same bytes for both reads. */
        double storeMiBps() {
            return plainBytes / MIB / storeSeconds;
        }

        double plainMiBps() {
            return plainBytes / MIB / plainSeconds;
        }

        /** Both reads move the same object bytes, so the ratio of their rates is that of their times. */
        double ratio() {
            return plainSeconds / storeSeconds;
        }
    }

    final boolean quick;
    final Host host;
    final String date;
    final String gitRev;
    StreamStoreConfig config;
    long walCapacity;
    Ingest ingest;
    /** Part 2's rounds, in order. */
    final List<CatchUp> catchUps = new java.util.ArrayList<>();
    /** /proc/loadavg just before part 2. */
    String catchUpLoad = "unknown";
    double tailSeconds;
    long loadRate;
    TailProbe.Phase alone;
    TailProbe.Phase writerOnly;
    TailProbe.Phase readerOnly;
    TailProbe.Phase loaded;
    SealProbe.Result steady;
    double elapsedSeconds;
    /** /proc/loadavg at start and end: other work on the machine shows up here. */
    String loadAtStart = "unknown";
    String loadAtEnd = "unknown";

    Report(boolean quick, Host host, String date, String gitRev) {
        this.quick = quick;
        this.host = host;
        this.date = date;
        this.gitRev = gitRev;
    }

    private double medianStoreSeconds() {
        return median(catchUps.stream().mapToDouble(c -> c.storeSeconds).toArray());
    }

    private double medianPlainSeconds() {
        return median(catchUps.stream().mapToDouble(c -> c.plainSeconds).toArray());
    }

    /** Both reads move the same bytes in every round: the ratio of the median times. */
    private double catchUpRatio() {
        return medianPlainSeconds() / medianStoreSeconds();
    }

    private double plainBytes() {
        return catchUps.get(0).plainBytes;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private double p99Ratio() {
        return loaded.p99Us() / alone.p99Us();
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# Stream store benchmark").append(quick ? " (quick)" : "").append("\n\n");
        line(b, "- date (UTC): %s, git rev: %s, elapsed: %.0f s", date, gitRev, elapsedSeconds);
        line(b, "- machine: %d CPUs (%s), %.1f GiB RAM, kernel %s, %s", host.cpus(), host.cpuModel(),
                host.memoryBytes() / GIB, host.kernel(), host.jdk());
        line(b, "- load average (1/5/15 min) at start: %s, at end: %s", loadAtStart, loadAtEnd);
        line(b, "- WAL: file on %s, capacity %.0f GiB, Direct IO; object storage: versitygw (posix backend) on "
                + "127.0.0.1, same disk", host.fsType(), walCapacity / GIB);
        line(b, "- StreamStoreConfig: all defaults: upload threshold %.0f MiB, upload interval %d ms, split "
                + "threshold %.0f MiB, log cache %.0f MiB, block cache %.0f MiB, object block %.0f KiB",
                config.uploadThresholdBytes() / MIB, config.uploadIntervalMs(), config.splitThresholdBytes() / MIB,
                config.logCacheSizeBytes() / MIB, config.blockCacheSizeBytes() / MIB,
                config.objectBlockSizeBytes() / 1024.0);
        b.append('\n');

        b.append("## 1. Ingest\n\n16 streams, 4 KiB batches from one thread (≤ 1024 in flight); half the batches go "
                + "to stream 0 (the big stream of part 2), the rest round-robin to the other 15.\n\n");
        b.append("| ingested | reached target | MiB/s (acked) | MiB/s (incl. final flush) | PUT | UploadPart | "
                + "CompleteMPU | CreateMPU | bytes written | PUT requests per GiB |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|\n");
        line(b, "| %.2f GiB | %s | %.1f | %.1f | %d | %d | %d | %d | %.2f GiB | %.1f |", ingest.bytes / GIB,
                ingest.reachedTarget ? "yes" : "no (time cap)", ingest.bytes / MIB / ingest.ackSeconds,
                ingest.bytes / MIB / ingest.flushSeconds, ingest.put, ingest.parts, ingest.complete, ingest.create,
                ingest.putBytes / GIB, ingest.putsPerGib());
        b.append("\nPUT requests = PUT + UploadPart + CompleteMultipartUpload (CreateMultipartUpload shown, not "
                + "counted). Written bytes include object indexes and any compaction rewrites during the run.\n\n");

        b.append("## 2. Catch-up read\n\nEach round on a fresh StreamStore (empty caches) over the same metadata "
                + "and objects: stream 0 read sequentially from offset 0 with 1 MiB fetches, then the same object "
                + "bytes (in each object that holds the stream, the run of its data blocks) with one plain ranged "
                + "GET per object, one after the other, through the same ObjectStorage. MiB/s of both count those "
                + "bytes, so a ratio is that of the two times. Before the first round, about 20 MiB per object of "
                + "other streams' bytes are read with plain ranged GETs, so neither read pays for compiling the "
                + "client's GET path; the first round still pays for compiling the store's. CPU ms/MiB is the "
                + "benchmark JVM's CPU time (all threads) per MiB of the same bytes, steadier than wall time on "
                + "a shared machine. ");
        line(b, "Load average before the rounds: %s.\n", catchUpLoad);
        b.append("| round | store MiB payload (MiB from S3) | store s | store MiB/s | store GETs | fetches (cache hits) "
                + "| store CPU ms/MiB | plain MiB | plain s | plain MiB/s | plain GETs | plain CPU ms/MiB | ratio |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < catchUps.size(); i++) {
            CatchUp c = catchUps.get(i);
            line(b, "| %d | %.0f (%.0f) | %.2f | %.1f | %d | %d (%d) | %.2f | %.0f | %.2f | %.1f | %d | %.2f | %.2f |",
                    i + 1, c.storeBytes / MIB, c.storeGetBytes / MIB, c.storeSeconds, c.storeMiBps(), c.storeGets,
                    c.fetches, c.cacheHits, c.storeCpuSeconds * 1000 / (c.plainBytes / MIB), c.plainBytes / MIB,
                    c.plainSeconds, c.plainMiBps(), c.objects, c.plainCpuSeconds * 1000 / (c.plainBytes / MIB),
                    c.ratio());
        }
        line(b, "\nmedian: store %.1f MiB/s, plain %.1f MiB/s; ratio store/plain (of the medians): **%.2f**\n",
                plainBytes() / MIB / medianStoreSeconds(), plainBytes() / MIB / medianPlainSeconds(), catchUpRatio());

        line(b, "## 3. Tail append latency\n\nOne stream, %d appends/s of 4 KiB, open loop (latency from each "
                + "append's due time), %.0f s per phase after a 1 s warm-up. Load: a writer at %.0f MiB/s "
                + "(half of part 1's rate, capped at 512) of 16 KiB batches over the other 15 streams, plus a "
                + "catch-up reader of stream 0 with 1 MiB fetches as fast as it can. \"writer only\" and "
                + "\"reader only\" run one of the two, to tell their effects apart.\n", 2000, tailSeconds,
                loadRate / MIB);
        b.append("| phase | appends | errors | p50 µs | p99 µs | p99.9 µs | max µs | load write MiB/s | "
                + "load read MiB/s | S3 PUT requests during phase |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (TailProbe.Phase p : List.of(alone, writerOnly, readerOnly, loaded)) {
            line(b, "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %d |", p.name(), p.count(),
                    p.errors(), p.p50Us(), p.p99Us(), p.p999Us(), p.maxUs(), p.loadWriteMiBps(),
                    p.loadReadMiBps(), p.putsDuring());
        }
        line(b, "\nratio p99(load)/p99(alone): **%.2f**\n", p99Ratio());

        line(b, "## 4. Appends across seals\n\nA new stream, %d appends/s of 4 KiB (%.0f MiB/s), open loop, %.0f s "
                + "after a flush, nothing else running: the log cache is sealed by age and uploaded during the "
                + "phase. Each append counts as \"PUT in flight\" if an upload PUT was in flight (from the request "
                + "being issued to its completion) when it was issued or completed. A PUT was in flight for %.1f s "
                + "of the phase. During it the JVM ran %d garbage collections (%d ms in total) and allocated "
                + "%.0f MiB.\n", steady.ratePerSecond(),
                steady.ratePerSecond() * 4096 / MIB, steady.seconds(), steady.putSeconds(), steady.gcCount(),
                steady.gcMillis(), steady.allocatedBytes() / MIB);
        b.append("| appends | count | errors | p50 µs | p99 µs | p99.9 µs | max µs | S3 PUT requests during phase |\n"
                + "|---|---|---|---|---|---|---|---|\n");
        for (TailProbe.Phase p : List.of(steady.all(), steady.duringPut(), steady.outsidePut())) {
            line(b, "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %s |", p.name(), p.count(), p.errors(), p.p50Us(),
                    p.p99Us(), p.p999Us(), p.maxUs(), p == steady.all() ? String.valueOf(steady.puts()) : "");
        }
        line(b, "\nratio p99/p50 (all): **%.2f**\n", steady.all().p99Us() / steady.all().p50Us());

        b.append("## Targets\n\n| target | measured | met |\n|---|---|---|\n");
        target(b, "S3 PUT requests per GiB ingested ≤ 8", String.format(Locale.ROOT, "%.1f", ingest.putsPerGib()),
                ingest.putsPerGib() <= 8);
        double ratio = catchUpRatio();
        target(b, "catch-up read ≥ 0.8 × plain GETs (median of " + catchUps.size() + ")",
                String.format(Locale.ROOT, "%.2f", ratio), ratio >= 0.8);
        target(b, "tail p99 under load ≤ 1.2 × alone", String.format(Locale.ROOT, "%.2f", p99Ratio()),
                p99Ratio() <= 1.2);
        return b.toString();
    }

    private static void target(StringBuilder b, String what, String measured, boolean met) {
        line(b, "| %s | %s | %s |", what, measured, met ? "met" : "**not met**");
    }

    private static void line(StringBuilder b, String format, Object... args) {
        b.append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    String json() {
        StringBuilder b = new StringBuilder("{\n");
        field(b, "date", '"' + date + '"');
        field(b, "gitRev", '"' + gitRev + '"');
        field(b, "quick", quick);
        field(b, "cpus", host.cpus());
        field(b, "ingestBytes", ingest.bytes);
        field(b, "ingestMiBps", ingest.bytes / MIB / ingest.ackSeconds);
        field(b, "ingestMiBpsWithFlush", ingest.bytes / MIB / ingest.flushSeconds);
        field(b, "putRequests", ingest.putRequests());
        field(b, "putRequestsPerGiB", ingest.putsPerGib());
        field(b, "catchUpStoreMiBps", plainBytes() / MIB / medianStoreSeconds());
        field(b, "catchUpPlainMiBps", plainBytes() / MIB / medianPlainSeconds());
        field(b, "catchUpRatio", catchUpRatio());
        field(b, "catchUpRoundRatios", catchUps.stream().map(c -> String.format(Locale.ROOT, "%.4f", c.ratio()))
                .collect(java.util.stream.Collectors.joining(", ", "[", "]")));
        for (TailProbe.Phase p : List.of(alone, writerOnly, readerOnly, loaded)) {
            String k = p == alone ? "tailAlone" : p == writerOnly ? "tailWriterOnly" : p == readerOnly
                    ? "tailReaderOnly" : "tailLoad";
            field(b, k + "P50Us", p.p50Us());
            field(b, k + "P99Us", p.p99Us());
            field(b, k + "P999Us", p.p999Us());
            field(b, k + "Errors", p.errors());
        }
        field(b, "steadyP50Us", steady.all().p50Us());
        field(b, "steadyP99Us", steady.all().p99Us());
        field(b, "steadyP999Us", steady.all().p999Us());
        field(b, "steadyDuringPutP99Us", steady.duringPut().p99Us());
        field(b, "steadyOutsidePutP99Us", steady.outsidePut().p99Us());
        field(b, "steadyPuts", steady.puts());
        field(b, "steadyGcCount", steady.gcCount());
        field(b, "steadyGcMillis", steady.gcMillis());
        field(b, "steadyAllocatedBytes", steady.allocatedBytes());
        field(b, "loadWriteMiBps", loaded.loadWriteMiBps());
        field(b, "loadReadMiBps", loaded.loadReadMiBps());
        b.append(String.format(Locale.ROOT, "  \"tailP99Ratio\": %.4f\n}\n", p99Ratio()));
        return b.toString();
    }

    private static void field(StringBuilder b, String key, Object value) {
        String v = value instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : String.valueOf(value);
        b.append("  \"").append(key).append("\": ").append(v).append(",\n");
    }
}
