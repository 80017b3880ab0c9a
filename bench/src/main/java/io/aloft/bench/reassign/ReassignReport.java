package io.aloft.bench.reassign;

import io.aloft.bench.cluster.BackgroundProducer;
import io.aloft.bench.cluster.Machine;
import io.aloft.bench.cluster.ServedProbe;

import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * The reassignment benchmark's report: Markdown for people (the README copies its tables) and JSON
 * with the same figures. Filled by {@link ReassignBenchmark}'s main thread, then rendered once.
 */
final class ReassignReport {
    private final ReassignBenchmark bench;
    private final String stamp;
    private final String rev;
    private final String machine;
    private final String loadAtStart;
    String loadAtEnd;
    double elapsedSeconds;
    ReassignBenchmark.Result kafka;
    ReassignBenchmark.Result aloft;

    ReassignReport(ReassignBenchmark bench, String stamp, String rev, Path work) {
        this.bench = bench;
        this.stamp = stamp;
        this.rev = rev;
        this.machine = Machine.describe(work);
        this.loadAtStart = Machine.loadAverage();
    }

    String command() {
        return "scripts/bench-reassign.sh" + (bench.quick ? " --quick" : "") + (bench.onS3 ? "" : " --objects file")
                + (bench.systems.size() == 2 ? "" : " --systems " + String.join(",", bench.systems));
    }

    String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("- date (UTC): ").append(stamp).append(", git rev: ").append(rev).append(", command: `")
                .append(command()).append("`, elapsed: ").append(String.format(Locale.ROOT, "%.0f s", elapsedSeconds))
                .append('\n');
        s.append("- machine: ").append(machine).append('\n');
        s.append("- load average (1/5/15 min) at start: ").append(loadAtStart).append(", at end: ").append(loadAtEnd)
                .append(" (the machine is shared)\n");
        for (ReassignBenchmark.Result r : new ReassignBenchmark.Result[] {kafka, aloft}) {
            if (r != null) {
                s.append("- ").append(r.description).append(r.error == null ? "" : "; **failed: " + r.error + "**")
                        .append('\n');
            }
        }
        s.append("- replication factor 1, every process on 127.0.0.1; partitions of ")
                .append(Loader.VALUE_BYTES / 1024).append(" KiB incompressible values; background producer: ")
                .append(ReassignBenchmark.BACKGROUND_RATE).append(" records/s of 1 KiB, idempotent, acks=all, over ")
                .append(ReassignBenchmark.TRAFFIC_PARTITIONS).append(" other partitions and the moved ones\n");
        s.append("- move time: from just before the AlterPartitionReassignments call (one target broker, the one after "
                + "the current owner, round-robin) until a probe produce (acks=all) to the partition was acknowledged by "
                + "the new broker: the probe producer, made before the call and bootstrapped on the new broker alone, "
                + "refreshes its metadata from it every ").append(ServedProbe.SINGLE_METADATA_AGE_MS)
                .append(" ms and sends the probe once that names the new broker as leader (so it goes to the new "
                        + "broker; the old one, until it has applied the move, would still acknowledge it); ")
                .append(Moves.PAUSE_MS).append(" ms between moves; p99 is nearest-rank (the largest of fewer than 100 "
                        + "moves)\n\n");
        s.append("**Move time (s)**\n\n| partition | moves (Kafka / Aloft) | Kafka p50 | Kafka p99 | Kafka max | Aloft p50 "
                + "| Aloft p99 | Aloft max | Aloft/Kafka p50 | Aloft/Kafka p99 |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ReassignBenchmark.Size size : bench.sizes) {
            Moves.Result k = kafka == null ? null : kafka.moves.get(size);
            Moves.Result a = aloft == null ? null : aloft.moves.get(size);
            s.append("| ").append(size.label()).append(" | ").append(count(k)).append(" / ").append(count(a))
                    .append(" | ").append(sec(k, 50)).append(" | ").append(sec(k, 99)).append(" | ").append(sec(k, 100))
                    .append(" | ").append(sec(a, 50)).append(" | ").append(sec(a, 99)).append(" | ")
                    .append(sec(a, 100)).append(" | ").append(ratio(a, k, 50)).append(" | ").append(ratio(a, k, 99))
                    .append(" |\n");
        }
        s.append("\nMedian breakdown (s from the call): the call returned / the probe's metadata named the new broker "
                + "/ the produce was acknowledged\n\n| partition | Kafka | Aloft |\n|---|---|---|\n");
        for (ReassignBenchmark.Size size : bench.sizes) {
            s.append("| ").append(size.label()).append(" | ").append(breakdown(kafka, size)).append(" | ")
                    .append(breakdown(aloft, size)).append(" |\n");
        }

        s.append("\n**Background producer** (latency from each record's due time, ms; retries: retriable errors the "
                + "client absorbed; failed: records that reached the callback with an error, retriable / other)\n\n"
                + "| phase | Kafka p50 / p99 / max | Kafka retries, failed | Aloft p50 / p99 / max | Aloft retries, "
                + "failed |\n|---|---:|---:|---:|---:|\n");
        s.append(producerRow("no moves (baseline)", r -> r.baseline));
        for (ReassignBenchmark.Size size : bench.sizes) {
            s.append(producerRow("moving the " + size.label() + " partition", r -> r.during.get(size)));
        }

        s.append("\n**Taking a broker holding ").append(Drain.PARTITIONS).append(" partitions out of service** (")
                .append(Drain.RECORDS_PER_PARTITION).append(" KiB each; s from the first action; \"acknowledged\": as for a move, Metadata polled every ")
                .append(ServedProbe.POLL_MANY_MS).append(" ms)\n\n"
                        + "| figure | Apache Kafka 4.3.1 | Aloft |\n|---|---:|---:|\n");
        Drain.Result kd = kafka == null ? null : kafka.drain;
        Drain.Result ad = aloft == null ? null : aloft.drain;
        drainRow(s, "partitions on the broker (set-up: " + Drain.PARTITIONS + " wanted)", kd == null ? ""
                : Integer.toString(kd.partitions), ad == null ? "" : Integer.toString(ad.partitions));
        drainRow(s, "SIGTERM → process exited", kd == null ? "" : f2(kd.shutdownExitSeconds) + " (partitions stay on it)",
                ad == null ? "" : f2(ad.drainExitSeconds) + " (drain)");
        drainRow(s, "SIGTERM → every partition acknowledged a produce elsewhere (p50 / last)", kd == null ? ""
                : "never: " + kd.offlineAfterExit + " of " + kd.partitions + " partitions without a leader after the exit",
                ad == null ? "" : f2(ad.drainServedP50Seconds) + " / **" + f2(ad.drainServedSeconds) + "**"
                        + (ad.drainNotServed > 0 ? " (" + ad.drainNotServed + " not served)" : ""));
        drainRow(s, "SIGTERM → Metadata named another broker for every partition", kd == null ? "" : "never",
                ad == null ? "" : ad.drainMetadataMoved == ad.partitions ? f2(ad.drainMetadataSeconds)
                        : ad.drainMetadataMoved + " of " + ad.partitions + " partitions");
        drainRow(s, "Kafka: SIGTERM → broker started again at once → every partition acknowledged on it (start "
                + "took)", kd == null ? "" : f2(kd.unavailableSeconds) + " (" + f1(kd.restartSeconds) + ")", "n/a");
        drainRow(s, "Kafka: one AlterPartitionReassignments of all to the other brokers → every partition "
                + "acknowledged there (p50 / last)", kd == null ? "" : f2(kd.reassignAwayP50Seconds) + " / **"
                + f2(kd.reassignAwaySeconds) + "**" + (kd.reassignAwayNotServed > 0 ? " (" + kd.reassignAwayNotServed
                + " not served)" : ""), "n/a (the drain does this)");
        drainRow(s, "Kafka: then SIGTERM of the empty broker → exited", kd == null ? "" : f2(kd.emptyExitSeconds),
                "n/a");
        drainRow(s, "probe produce errors (retriable / other)", kd == null ? "" : kd.probeErrorsRetriable + " / "
                + kd.probeErrorsOther, ad == null ? "" : ad.probeErrorsRetriable + " / " + ad.probeErrorsOther);
        return s.toString();
    }

    private String producerRow(String phase, Function<ReassignBenchmark.Result, BackgroundProducer.Phase> f) {
        return "| " + phase + " | " + latency(kafka, f) + " | " + errors(kafka, f) + " | " + latency(aloft, f) + " | "
                + errors(aloft, f) + " |\n";
    }

    private static String latency(ReassignBenchmark.Result r,
            Function<ReassignBenchmark.Result, BackgroundProducer.Phase> f) {
        BackgroundProducer.Phase p = r == null ? null : f.apply(r);
        if (p == null || p.latencyMicros().getTotalCount() == 0) {
            return "";
        }
        Histogram h = p.latencyMicros();
        return f1(h.getValueAtPercentile(50) / 1000.0) + " / " + f1(h.getValueAtPercentile(99) / 1000.0) + " / "
                + f1(h.getMaxValue() / 1000.0);
    }

    private static String errors(ReassignBenchmark.Result r,
            Function<ReassignBenchmark.Result, BackgroundProducer.Phase> f) {
        BackgroundProducer.Phase p = r == null ? null : f.apply(r);
        return p == null ? "" : p.retries() + ", " + p.failedRetriable() + " / " + p.failedOther();
    }

    private static void drainRow(StringBuilder s, String figure, String kafka, String aloft) {
        s.append("| ").append(figure).append(" | ").append(kafka).append(" | ").append(aloft).append(" |\n");
    }

    private static String breakdown(ReassignBenchmark.Result r, ReassignBenchmark.Size size) {
        Moves.Result m = r == null ? null : r.moves.get(size);
        if (m == null || m.moves().isEmpty()) {
            return "";
        }
        return f3(m.median(Moves.Move::callSeconds)) + " / " + f3(m.median(Moves.Move::metadataSeconds)) + " / "
                + f3(m.median(Moves.Move::ackSeconds));
    }

    private static String count(Moves.Result m) {
        if (m == null) {
            return "-";
        }
        return m.moves().size() + (m.timedOut() > 0 ? " (+" + m.timedOut() + " timed out)" : "");
    }

    private static String sec(Moves.Result m, double p) {
        return m == null || m.moves().isEmpty() ? "" : f3(m.percentile(p));
    }

    private static String ratio(Moves.Result a, Moves.Result k, double p) {
        if (a == null || k == null || a.moves().isEmpty() || k.moves().isEmpty()) {
            return "";
        }
        return f3(a.percentile(p) / k.percentile(p));
    }

    private static String f1(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String f3(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    String json() {
        StringBuilder s = new StringBuilder("{\"date\":\"").append(stamp).append("\",\"rev\":\"").append(rev)
                .append("\",\"quick\":").append(bench.quick).append(",\"command\":\"").append(command())
                .append("\",\"loadAtStart\":\"").append(loadAtStart).append("\",\"loadAtEnd\":\"").append(loadAtEnd)
                .append("\",\"kafka\":").append(json(kafka)).append(",\"aloft\":").append(json(aloft)).append("}\n");
        return s.toString();
    }

    private String json(ReassignBenchmark.Result r) {
        if (r == null) {
            return "null";
        }
        StringBuilder s = new StringBuilder("{\"error\":").append(r.error == null ? "null" : quote(r.error))
                .append(",\"moves\":{");
        String sep = "";
        for (ReassignBenchmark.Size size : bench.sizes) {
            Moves.Result m = r.moves.get(size);
            if (m == null) {
                continue;
            }
            s.append(sep).append(quote(size.label())).append(":{\"bytes\":").append(size.bytes()).append(",\"timedOut\":")
                    .append(m.timedOut()).append(",\"seconds\":[");
            String sep2 = "";
            for (Moves.Move move : m.moves()) {
                s.append(sep2).append(String.format(Locale.ROOT, "%.4f", move.ackSeconds()));
                sep2 = ",";
            }
            s.append("],\"p50\":").append(num(m.percentile(50))).append(",\"p99\":").append(num(m.percentile(99)))
                    .append(",\"max\":").append(num(m.max())).append('}');
            sep = ",";
        }
        s.append("},\"producer\":{");
        sep = "";
        if (r.baseline != null) {
            s.append("\"baseline\":").append(json(r.baseline));
            sep = ",";
        }
        for (var e : r.during.entrySet()) {
            s.append(sep).append(quote(e.getKey().label())).append(':').append(json(e.getValue()));
            sep = ",";
        }
        s.append('}');
        Drain.Result d = r.drain;
        if (d != null) {
            s.append(",\"drain\":{\"partitions\":").append(d.partitions)
                    .append(",\"drainMetadataSeconds\":").append(num(d.drainMetadataSeconds))
                    .append(",\"drainNotServed\":").append(d.drainNotServed).append(",\"drainExitSeconds\":")
                    .append(num(d.drainExitSeconds)).append(",\"drainServedSeconds\":").append(num(d.drainServedSeconds))
                    .append(",\"shutdownExitSeconds\":").append(num(d.shutdownExitSeconds)).append(",\"offlineAfterExit\":")
                    .append(d.offlineAfterExit).append(",\"unavailableSeconds\":").append(num(d.unavailableSeconds))
                    .append(",\"reassignAwaySeconds\":").append(num(d.reassignAwaySeconds))
                    .append(",\"emptyExitSeconds\":").append(num(d.emptyExitSeconds)).append('}');
        }
        return s.append('}').toString();
    }

    private static String json(BackgroundProducer.Phase p) {
        Histogram h = p.latencyMicros();
        return String.format(Locale.ROOT, "{\"acked\":%d,\"p50Ms\":%.2f,\"p99Ms\":%.2f,\"maxMs\":%.2f,\"retries\":%d,"
                + "\"failedRetriable\":%d,\"failedOther\":%d}", p.acked(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, p.retries(), p.failedRetriable(),
                p.failedOther());
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String quote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
    }
}
