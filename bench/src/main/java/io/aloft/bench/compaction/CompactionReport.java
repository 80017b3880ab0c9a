package io.aloft.bench.compaction;

import io.aloft.bench.cluster.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The compaction benchmark's report: Markdown for people (the README copies its tables) and JSON
 * with the same figures. Filled by {@link CompactionBenchmark}'s main thread, then rendered once.
 */
final class CompactionReport {
    private static final double MIB = 1048576.0;
    private static final double MB = 1_000_000.0;

    private final CompactionBenchmark bench;
    private final String stamp;
    private final String rev;
    private final String machine;
    private final String loadAtStart;
    String loadAtEnd;
    double elapsedSeconds;
    CompactionBenchmark.Result kafka;
    CompactionBenchmark.Result aloft;

    CompactionReport(CompactionBenchmark bench, String stamp, String rev, Path work) {
        this.bench = bench;
        this.stamp = stamp;
        this.rev = rev;
        this.machine = Machine.describe(work);
        this.loadAtStart = Machine.loadAverage();
    }



    private static String ms(Histogram h, double percentile) {
        return String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(percentile) / 1000.0);
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("- date (UTC): ").append(stamp).append(", git rev: ").append(rev).append(", elapsed: ")
                .append(String.format(Locale.ROOT, "%.0f s", elapsedSeconds)).append(bench.quick ? " (--quick)" : "")
                .append('\n');
        s.append("- machine: ").append(machine).append('\n');
        s.append("- load average (1/5/15 min) at start: ").append(loadAtStart).append(", at end: ").append(loadAtEnd)
                .append('\n');
        s.append("- workload: one partition, ").append(aloft.records).append(" records of ")
                .append(CompactionBenchmark.VALUE_BYTES).append("-byte values (").append(f1(bench.dataBytes / MIB))
                .append(" MiB), keys drawn at random from ").append(aloft.keys).append(" (10%); segment.bytes ")
                .append(bench.segmentBytes >> 20).append(" MiB; switched from cleanup.policy=delete to compact; probe: ")
                .append(CompactionBenchmark.PROBE_RATE).append(" records/s of 1 KiB, acks=all, over 4 partitions of "
                        + "another topic\n");
        s.append("- ").append(kafka.description).append('\n');
        s.append("- ").append(aloft.description).append("\n\n");
        s.append("| figure | Apache Kafka 4.3.1 | Aloft | Aloft/Kafka |\n|---|---:|---:|---:|\n");
        row(s, "partition size before compaction (MiB)", f1(kafka.sizeBefore / MIB), f1(aloft.sizeBefore / MIB), "");
        row(s, "after (MiB)", f1(kafka.sizeAfter / MIB), f1(aloft.sizeAfter / MIB), "");
        row(s, "compaction time (s, switch to last size drop)", f1(kafka.compactionSeconds),
                f1(aloft.compactionSeconds), f2(aloft.compactionSeconds / kafka.compactionSeconds));
        row(s, "**compaction throughput (MB of input / s)**", f1(kafka.throughputMBps()), f1(aloft.throughputMBps()),
                "**" + f2(aloft.throughputMBps() / kafka.throughputMBps()) + "**");
        row(s, "object storage read per MB compacted (MB)", "n/a", f2(aloft.objectBytesRead / (double) aloft.sizeBefore),
                "");
        row(s, "object storage written per MB compacted (MB)", "n/a",
                f2(aloft.objectBytesWritten / (double) aloft.sizeBefore), "");
        row(s, "compactor heap: key map allocated (MiB)", "(128, its default)", f1(aloft.keyMapBytes / MIB), "");
        row(s, "compactor heap: rise of peak heap in use during compaction (MiB)", "n/a", f1(aloft.heapRise / MIB),
                "");
        row(s, "probe p50 / p99 / p99.9 without compaction (ms)", ms(kafka.baseline, 50) + " / "
                + ms(kafka.baseline, 99) + " / " + ms(kafka.baseline, 99.9), ms(aloft.baseline, 50) + " / "
                + ms(aloft.baseline, 99) + " / " + ms(aloft.baseline, 99.9), "");
        row(s, "probe p50 / p99 / p99.9 during compaction (ms)", ms(kafka.during, 50) + " / " + ms(kafka.during, 99)
                + " / " + ms(kafka.during, 99.9), ms(aloft.during, 50) + " / " + ms(aloft.during, 99) + " / "
                + ms(aloft.during, 99.9), "");
        row(s, "probe p99 during ÷ without", f2(ratio(kafka.during, kafka.baseline)),
                f2(ratio(aloft.during, aloft.baseline)), "");
        row(s, "probe errors", Long.toString(kafka.probeErrors), Long.toString(aloft.probeErrors), "");
        s.append('\n').append("Aloft's cleaner: ").append(aloft.cleanings).append(" cleaning(s), ")
                .append(f1(aloft.cleanerInputBytes / MIB)).append(" MiB in, ").append(f1(aloft.cleanerOutputBytes / MIB))
                .append(" MiB out; object storage ").append(f1(aloft.objectBytesRead / MIB)).append(" MiB read, ")
                .append(f1(aloft.objectBytesWritten / MIB)).append(" MiB written during the compaction window "
                        + "(the probe's own uploads included).\n");
        return s.toString();
    }

    private static double ratio(Histogram during, Histogram baseline) {
        return during.getValueAtPercentile(99) / (double) Math.max(1, baseline.getValueAtPercentile(99));
    }

    private static void row(StringBuilder s, String figure, String kafka, String aloft, String ratio) {
        s.append("| ").append(figure).append(" | ").append(kafka).append(" | ").append(aloft).append(" | ")
                .append(ratio).append(" |\n");
    }

    String json() {
        return "{\"date\":\"" + stamp + "\",\"rev\":\"" + rev + "\",\"quick\":" + bench.quick + ",\"dataBytes\":"
                + bench.dataBytes + ",\"kafka\":" + json(kafka) + ",\"aloft\":" + json(aloft) + ",\"throughputRatio\":"
                + f2(aloft.throughputMBps() / kafka.throughputMBps()) + "}\n";
    }

    private static String json(CompactionBenchmark.Result r) {
        return String.format(Locale.ROOT, "{\"records\":%d,\"keys\":%d,\"loadSeconds\":%.2f,\"sizeBefore\":%d,"
                + "\"sizeAfter\":%d,\"compactionSeconds\":%.3f,\"throughputMBps\":%.2f,\"baselineP99Ms\":%.2f,"
                + "\"duringP99Ms\":%.2f,\"probeErrors\":%d,\"objectBytesRead\":%d,\"objectBytesWritten\":%d,"
                + "\"cleanerInputBytes\":%d,\"cleanerOutputBytes\":%d,\"keyMapBytes\":%d,\"heapRise\":%d}",
                r.records, r.keys, r.loadSeconds, r.sizeBefore, r.sizeAfter, r.compactionSeconds, r.throughputMBps(),
                r.baseline.getValueAtPercentile(99) / 1000.0, r.during.getValueAtPercentile(99) / 1000.0,
                r.probeErrors, r.objectBytesRead, r.objectBytesWritten, r.cleanerInputBytes, r.cleanerOutputBytes,
                r.keyMapBytes, r.heapRise);
    }
}
