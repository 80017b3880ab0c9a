package io.aloft.bench.failover;

import io.aloft.bench.cluster.Machine;
import io.aloft.bench.cluster.ServedProbe;
import io.aloft.bench.cluster.Stats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The failover benchmark's report: Markdown for people and JSON with the same figures. Filled by
 * {@link FailoverBenchmark}'s main thread, then rendered once.
 */
final class FailoverReport {
    static final double TARGET_FAILOVER_SECONDS = 10;
    static final double TARGET_PUTS_PER_GIB = 32;

    private final FailoverBenchmark bench;
    private final String stamp;
    private final String rev;
    private final String machine;
    private final String loadAtStart;
    String loadAtEnd;
    double elapsedSeconds;
    final List<FailoverBenchmark.SettingResult> settings = new ArrayList<>();
    /** The WAL cost runs, in the order made: per offered load, the object WAL's then the block WAL's. */
    final List<WalCost.Result> costs = new ArrayList<>();

    FailoverReport(FailoverBenchmark bench, String stamp, String rev, Path work) {
        this.bench = bench;
        this.stamp = stamp;
        this.rev = rev;
        this.machine = Machine.describe(work);
        this.loadAtStart = Machine.loadAverage();
    }

    String command() {
        StringBuilder s = new StringBuilder("scripts/bench-failover.sh");
        if (bench.quick) {
            s.append(" --quick");
        }
        s.append(" --wal ").append(bench.walMode).append(" --rounds ").append(bench.rounds).append(" --rate ")
                .append(bench.rate);
        if (!(bench.failoverPhase && bench.costPhase)) {
            s.append(" --phases ").append(bench.failoverPhase ? "failover" : "cost");
        }
        if (bench.costPhase) {
            s.append(" --cost-mib-per-second ").append(join(bench.costMibPerSecond));
            if (!bench.batchIntervalsMs.isEmpty()) {
                s.append(" --wal-batch-intervals ").append(join(bench.batchIntervalsMs));
            }
            s.append(" --cost-seconds ").append(bench.costSeconds);
        }
        return s.toString();
    }

    private static String join(List<? extends Number> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("- date (UTC): ").append(stamp).append(", git rev: ").append(rev).append(", command: `")
                .append(command()).append("`, elapsed: ").append(String.format(Locale.ROOT, "%.0f s", elapsedSeconds))
                .append('\n');
        s.append("- machine: ").append(machine).append('\n');
        s.append("- load average (1/5/15 min) at start: ").append(loadAtStart).append(", at end: ").append(loadAtEnd)
                .append(" (the machine is shared)\n");
        s.append("- node logs: ").append(bench.logDir).append('\n');
        if (bench.failoverPhase) {
            failover(s);
        }
        if (bench.costPhase) {
            cost(s);
        }
        return s.toString();
    }

    private void failover(StringBuilder s) {
        s.append("\n### Failover after SIGKILL\n\n");
        if (!settings.isEmpty()) {
            s.append("- ").append(settings.get(0).description).append('\n');
        }
        s.append("- topic of ").append(FailoverBenchmark.PARTITIONS).append(" partitions, replication factor 1; load: ")
                .append(bench.rate).append(" records/s of ").append(SequencedProducer.VALUE_BYTES / 1024)
                .append(" KiB, idempotent, acks=all, round-robin, each record keyed by its per-partition sequence "
                        + "number\n");
        s.append("- a round: SIGKILL one broker (round-robin: 1, 2, 3, ...; each is also a controller voter), then "
                + "**failover time** = from just before the SIGKILL until every partition it led had acknowledged a "
                + "probe produce (acks=all) at a live broker: Metadata polled every ").append(ServedProbe.POLL_MANY_MS)
                .append(" ms until it names another broker as leader, then one probe record sent to the partition; "
                        + "then the broker is started again, its partitions are moved back (AlterPartitionReassignments) "
                        + "and the round ends once every partition of the load had a record acknowledged within 1 s, "
                        + "twice 2 s apart. Block WAL: the round waits at most ").append(Rounds.BLOCK_CAP_MS / 1000)
                .append(" s for the partitions elsewhere, then restarts the broker and says \"waited for restart\"\n");
        s.append("- loss check: after the rounds the whole topic is read back; **lost** = acknowledged but not in the "
                + "log, **duplicated** = in the log more than once (per round: of the records sent between the "
                + "previous kill and that round's)\n\n");
        s.append("| setting | rounds | failover p50 (s) | failover max (s) | targets (≤ ").append(fmt0(TARGET_FAILOVER_SECONDS))
                .append(" s, 0 lost) | acknowledged lost | duplicated | reordered | load acked / failed |\n"
                        + "|---|---:|---:|---:|:---:|---:|---:|---:|---:|\n");
        for (FailoverBenchmark.SettingResult r : settings) {
            double[] times = r.rounds.stream().mapToDouble(Rounds.Round::failoverSeconds).toArray();
            boolean allServed = r.rounds.stream().allMatch(x -> x.notServed() == 0 && !x.waitedForRestart());
            double max = max(times);
            boolean noLoss = r.loss != null && r.loss.error() == null && r.loss.total(r.loss.lost()) == 0;
            String ok = r.rounds.isEmpty() ? "-" : allServed && max <= TARGET_FAILOVER_SECONDS && noLoss ? "yes"
                    : "**no**" + (noLoss ? "" : " (loss)");
            s.append("| ").append(r.setting.label()).append(" (heartbeat ").append(r.setting.heartbeatMs())
                    .append(" ms)").append(r.error == null ? "" : " **failed: " + r.error + "**").append(" | ")
                    .append(r.rounds.size()).append(" | ").append(f2(Stats.percentile(finite(times), 50))).append(" | ")
                    .append(f2(max)).append(" | ").append(ok).append(" | ")
                    .append(r.loss == null ? "not checked" : bold(r.loss.total(r.loss.lost()))).append(" | ")
                    .append(r.loss == null ? "" : r.loss.total(r.loss.duplicated())).append(" | ")
                    .append(r.loss == null ? "" : r.loss.total(r.loss.reordered())).append(" | ")
                    .append(r.loadAcked).append(" / ").append(r.loadFailed)
                    .append(r.loadFailures.isEmpty() ? "" : " " + r.loadFailures).append(" |\n");
        }
        for (FailoverBenchmark.SettingResult r : settings) {
            if (r.loss != null && r.loss.total(r.loss.lost()) > 0) {
                s.append("\n**").append(r.setting.label()).append(": ").append(r.loss.total(r.loss.lost()))
                        .append(" acknowledged records lost** (e.g. partition:sequence@kills before it was sent: ")
                        .append(String.join(", ", r.loss.lostExamples())).append("); node logs: ")
                        .append(bench.logDir.resolve(r.setting.objectWal() ? "object" : "block")
                                .resolve("session-" + r.setting.sessionMs())).append('\n');
            }
        }
        s.append("\n**Rounds** (s from the SIGKILL; partition p50 / last = failover; Metadata: when it named a live "
                + "leader for the last of them; load: when the load producer had a record acknowledged on the last "
                + "of them; fenced / WAL recovered: from the surviving brokers' logs, when the controller fenced the "
                + "dead broker and when a live broker had recovered its WAL (and how long that took); restart: until the broker answered with every broker registered; moved back: until its "
                + "partitions acknowledged a probe on it; lost / dup: of the records sent between the previous kill (or the "
                + "start) and this one, i.e. those this kill could catch not yet uploaded)\n\n"
                + "| setting | round | killed | partitions | p50 | **last** | fenced | WAL recovered (took) | Metadata "
                + "| load | restart | moved back | steady | probe errors | lost | dup |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (FailoverBenchmark.SettingResult r : settings) {
            for (Rounds.Round x : r.rounds) {
                s.append("| ").append(r.setting.label()).append(" | ").append(x.number()).append(" | ")
                        .append(x.victim()).append(" | ").append(x.partitions()).append(" | ")
                        .append(f2(x.p50PartitionSeconds())).append(" | **").append(f2(x.failoverSeconds()))
                        .append("**").append(x.waitedForRestart() ? " (waited for restart)" : "")
                        .append(x.notServed() > 0 ? " (" + x.notServed() + " not served)" : "").append(" | ")
                        .append(f2(x.logs().fencedSeconds())).append(" | ").append(f2(x.logs().walRecoveredSeconds()))
                        .append(" (").append(f2(x.logs().recoveryMs() / 1000)).append(") | ")
                        .append(f2(x.metadataSeconds())).append(" | ").append(f2(x.loadFirstAckSeconds())).append(" | ")
                        .append(f1(x.restartSeconds())).append(" | ").append(f1(x.moveBackSeconds())).append(" | ")
                        .append(f1(x.steadySeconds())).append(" | ").append(x.probeErrorsRetriable()).append(" / ")
                        .append(x.probeErrorsOther()).append(" | ")
                        .append(r.loss == null ? "" : bold(r.loss.lost()[x.number() - 1])).append(" | ")
                        .append(r.loss == null ? "" : r.loss.duplicated()[x.number() - 1]).append(" |\n");
            }
            if (r.loss != null && !r.rounds.isEmpty()) {
                int last = r.rounds.size();
                s.append("| ").append(r.setting.label()).append(" | sent after the last kill | | | | | | | | | | | | | ")
                        .append(bold(r.loss.lost()[last])).append(" | ").append(r.loss.duplicated()[last]).append(" |\n");
            }
            if (r.loss != null && r.loss.error() != null) {
                s.append("| ").append(r.setting.label()).append(" | loss check | | | | | | | | | | | | | ")
                        .append(r.loss.error()).append(" | |\n");
            }
        }
        s.append('\n');
        for (FailoverBenchmark.SettingResult r : settings) {
            if (r.loss != null) {
                s.append("- ").append(r.setting.label()).append(": sent ").append(r.loss.total(r.loss.sent()))
                        .append(", acknowledged ").append(r.loss.total(r.loss.acked())).append(", read back ")
                        .append(r.loss.consumed()).append(" (").append(r.loss.probeRecords())
                        .append(" of them probes), unacknowledged but present ")
                        .append(r.loss.total(r.loss.unacknowledgedPresent())).append(", read in ")
                        .append(f1(r.loss.seconds())).append(" s\n");
            }
        }
    }

    private void cost(StringBuilder s) {
        s.append("\n### WAL cost: S3 WAL vs block WAL, one broker\n\n");
        s.append("- one Aloft broker, objects on a local versitygw; open-loop load of ")
                .append(join(bench.costMibPerSecond)).append(" MiB/s (1 KiB records, idempotent, "
                        + "acks=all, linger.ms=0) over ").append(WalCost.PARTITIONS).append(" partitions; ")
                .append(WalCost.WARMUP_MS / 1000).append(" s warm-up, then a ").append(bench.costSeconds)
                .append(" s window; latency from each record's due time\n");
        s.append("- object WAL PUTs: counted outside the broker from versitygw's data directory: WAL objects are "
                + "numbered one per PUT (`wal/node-1/<20-digit sequence>`), so PUTs in the window = the highest "
                + "number at its end minus the one at its start; trim-point PUTs (`wal/node-1/trim`) sampled every ")
                .append(WalPuts.SAMPLE_MS).append(" ms (a lower bound). Per GiB = of record values acknowledged "
                        + "(1 KiB each). A PUT starts at most once per batch interval (wal.object.batch.interval.ms) "
                        + "unless an object fills (wal.object.max.bytes): PUTs per GiB fall as the load rises. "
                        + "versitygw runs on the same host: a real S3 PUT takes tens of ms more, so the object WAL's "
                        + "latency here is a lower bound\n\n");
        s.append("| offered (MiB/s) | WAL | acknowledged | rate (MiB/s) | p50 (ms) | p99 (ms) | max (ms) | retries, "
                + "failed | WAL PUTs | PUTs / GiB | + trim PUTs | mean object |\n"
                + "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (WalCost.Result r : costs) {
            s.append("| ").append(r.offeredMibPerSecond()).append(" | ").append(r.label()).append(" | ");
            if (r.phase() == null) {
                s.append("**failed: ").append(r.error()).append("** | | | | | | | | | |\n");
                continue;
            }
            Histogram h = r.phase().latencyMicros();
            s.append(r.phase().acked()).append(" | ")
                    .append(f2(r.ackedBytes() / (1 << 20) / r.seconds())).append(" | ")
                    .append(f2(h.getValueAtPercentile(50) / 1000.0)).append(" | ")
                    .append(f2(h.getValueAtPercentile(99) / 1000.0)).append(" | ").append(f1(h.getMaxValue() / 1000.0))
                    .append(" | ").append(r.phase().retries()).append(", ").append(r.phase().failedRetriable())
                    .append(" / ").append(r.phase().failedOther()).append(" | ");
            if (r.puts() == null) {
                s.append("n/a | n/a | n/a | n/a |\n");
            } else {
                s.append(r.puts().recordObjects()).append(" | **").append(fmt0(r.putsPerGib())).append("** | ")
                        .append(r.puts().trimPuts()).append(" (").append(fmt0(r.putsPerGibWithTrims()))
                        .append(" / GiB with them) | ").append(fmt0(r.puts().meanObjectBytes() / 1024)).append(" KiB |\n");
            }
        }
        s.append('\n');
        for (WalCost.Result r : costs) {
            if (r.puts() != null && r.batchIntervalMs() == null) {
                s.append("- target ≤ ").append(fmt0(TARGET_PUTS_PER_GIB)).append(" PUTs/GiB at default batching, ")
                        .append(r.offeredMibPerSecond()).append(" MiB/s: ")
                        .append(r.putsPerGib() <= TARGET_PUTS_PER_GIB ? "met" : "**not met**").append(" (")
                        .append(fmt0(r.putsPerGib())).append(")\n");
            }
        }
        s.append("- at most one PUT per batch interval I and one per full object of M bytes, PUTs per GiB at a "
                + "load of R MiB/s are at least 1024 / min(R × I, M in MiB) (default M = 8 MiB: 128 at the least)\n");
        costs.stream().map(r -> "- " + r.wal() + ": " + r.description() + "\n").distinct().forEach(s::append);
    }

    String json() {
        StringBuilder s = new StringBuilder("{\"date\":\"").append(stamp).append("\",\"rev\":\"").append(rev)
                .append("\",\"quick\":").append(bench.quick).append(",\"command\":").append(quote(command()))
                .append(",\"machine\":").append(quote(machine)).append(",\"loadAtStart\":\"").append(loadAtStart)
                .append("\",\"loadAtEnd\":\"").append(loadAtEnd).append("\",\"failover\":[");
        String sep = "";
        for (FailoverBenchmark.SettingResult r : settings) {
            double[] times = r.rounds.stream().mapToDouble(Rounds.Round::failoverSeconds).toArray();
            s.append(sep).append("{\"wal\":\"").append(r.setting.objectWal() ? "object" : "block")
                    .append("\",\"sessionTimeoutMs\":").append(r.setting.sessionMs()).append(",\"heartbeatIntervalMs\":")
                    .append(r.setting.heartbeatMs()).append(",\"error\":")
                    .append(r.error == null ? "null" : quote(r.error)).append(",\"failoverP50\":")
                    .append(num(Stats.percentile(finite(times), 50))).append(",\"failoverMax\":").append(num(max(times)))
                    .append(",\"loadAcked\":").append(r.loadAcked).append(",\"loadFailed\":").append(r.loadFailed)
                    .append(",\"rounds\":[");
            String sep2 = "";
            for (Rounds.Round x : r.rounds) {
                s.append(sep2).append("{\"round\":").append(x.number()).append(",\"victim\":").append(x.victim())
                        .append(",\"partitions\":").append(x.partitions()).append(",\"failoverSeconds\":")
                        .append(num(x.failoverSeconds())).append(",\"p50PartitionSeconds\":")
                        .append(num(x.p50PartitionSeconds())).append(",\"fencedSeconds\":")
                        .append(num(x.logs().fencedSeconds())).append(",\"walRecoveredSeconds\":")
                        .append(num(x.logs().walRecoveredSeconds())).append(",\"walRecoveryMs\":")
                        .append(num(x.logs().recoveryMs())).append(",\"metadataSeconds\":")
                        .append(num(x.metadataSeconds())).append(",\"loadFirstAckSeconds\":")
                        .append(num(x.loadFirstAckSeconds())).append(",\"waitedForRestart\":")
                        .append(x.waitedForRestart()).append(",\"notServed\":").append(x.notServed())
                        .append(",\"restartSeconds\":").append(num(x.restartSeconds())).append(",\"moveBackSeconds\":")
                        .append(num(x.moveBackSeconds())).append(",\"steadySeconds\":").append(num(x.steadySeconds()))
                        .append(",\"lostSentBeforeThisKill\":")
                        .append(r.loss == null ? "null" : r.loss.lost()[x.number() - 1])
                        .append(",\"duplicatedSentBeforeThisKill\":")
                        .append(r.loss == null ? "null" : r.loss.duplicated()[x.number() - 1])
                        .append('}');
                sep2 = ",";
            }
            s.append("]");
            if (r.loss != null) {
                s.append(",\"loss\":{\"sent\":").append(r.loss.total(r.loss.sent())).append(",\"acked\":")
                        .append(r.loss.total(r.loss.acked())).append(",\"lost\":").append(r.loss.total(r.loss.lost()))
                        .append(",\"duplicated\":").append(r.loss.total(r.loss.duplicated())).append(",\"reordered\":")
                        .append(r.loss.total(r.loss.reordered())).append(",\"lostBeforeFirstKill\":")
                        .append(r.loss.lost()[0]).append(",\"lostSentAfterLastKill\":")
                        .append(r.loss.lost()[r.loss.lost().length - 1]).append(",\"error\":")
                        .append(r.loss.error() == null ? "null" : quote(r.loss.error())).append('}');
            }
            s.append('}');
            sep = ",";
        }
        s.append("],\"walCost\":[");
        sep = "";
        for (WalCost.Result r : costs) {
            s.append(sep).append("{\"wal\":\"").append(r.wal()).append("\",\"offeredMibPerSecond\":")
                    .append(r.offeredMibPerSecond()).append(",\"batchIntervalMs\":").append(r.batchIntervalMs())
                    .append(",\"error\":")
                    .append(r.error() == null ? "null" : quote(r.error()));
            if (r.phase() != null) {
                Histogram h = r.phase().latencyMicros();
                s.append(String.format(Locale.ROOT, ",\"acked\":%d,\"seconds\":%.2f,\"p50Ms\":%.3f,\"p99Ms\":%.3f,"
                        + "\"maxMs\":%.3f", r.phase().acked(), r.seconds(), h.getValueAtPercentile(50) / 1000.0,
                        h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0));
            }
            if (r.puts() != null) {
                s.append(",\"walPuts\":").append(r.puts().recordObjects()).append(",\"trimPuts\":")
                        .append(r.puts().trimPuts()).append(",\"putsPerGib\":").append(num(r.putsPerGib()))
                        .append(",\"meanObjectBytes\":").append(num(r.puts().meanObjectBytes()));
            }
            s.append('}');
            sep = ",";
        }
        return s.append("]}\n").toString();
    }

    private static double[] finite(double[] v) {
        return java.util.Arrays.stream(v).filter(d -> !Double.isNaN(d)).toArray();
    }

    /** The largest, NaN if any is NaN (a round not served) or there are none. */
    private static double max(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double m = 0;
        for (double d : v) {
            if (Double.isNaN(d)) {
                return Double.NaN;
            }
            m = Math.max(m, d);
        }
        return m;
    }

    private static String bold(long n) {
        return n == 0 ? "0" : "**" + n + "**";
    }

    private static String fmt0(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String f1(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String quote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
    }
}
