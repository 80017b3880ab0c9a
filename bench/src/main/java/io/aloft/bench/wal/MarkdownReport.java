package io.aloft.bench.wal;

import java.util.List;
import java.util.Locale;

/** Renders {@link Results} as Markdown ready to paste into the README. Stateless. */
final class MarkdownReport {
    private static final double TARGET_RATIO = 0.8;
    private static final double TARGET_P99_US = 2000;

    private MarkdownReport() {
    }

    static String render(Results r) {
        StringBuilder sb = new StringBuilder();
        MachineInfo m = r.machine();
        sb.append("### WAL benchmark\n\n");
        sb.append(String.format(Locale.ROOT, "Measured %s with `scripts/bench-wal.sh%s` (git %s): raw cells %s, "
                + "WAL cells %s. MB = 10^6 bytes; WAL MB/s counts record bodies only.%n%n",
                r.date(), r.quick() ? " --quick" : "", r.gitRevision(), window(r.rawWindow()), window(r.walWindow())));
        sb.append("| machine | |\n|---|---|\n");
        row(sb, "CPUs", m.cpus() + " × " + m.cpuModel());
        row(sb, "memory", String.format(Locale.ROOT, "%.1f GiB", m.memoryBytes() / (double) (1L << 30)));
        row(sb, "kernel", "Linux " + m.kernel());
        row(sb, "file system", m.fsType() + " on " + m.fsDevice() + " (mounted at " + m.mountPoint() + ")");
        row(sb, "JDK", m.jdk());
        row(sb, "load average", m.loadAverage() + " at start, " + r.loadAtEnd() + " at end");
        row(sb, "WAL", size(r.capacity()) + " file, Direct IO + O_DSYNC, wal.max.batch.bytes=" + r.maxBatchBytes()
                + " (default), wal.max.inflight.writes=" + r.defaultInflight() + " (default) unless stated");
        sb.append('\n');
        sb.append("CPU cores: this JVM's CPU time over the window ÷ its length. Disk busy and disk MB/s come from "
                + "/proc/diskstats and count every process's I/O: disk MB/s well above the cell's own figure means "
                + "another job shared the device. WAL write MB/s: bytes the WAL wrote, record headers and "
                + "padding included.\n\n");

        sb.append("#### Raw sequential writes: FileChannel, O_DIRECT | O_DSYNC, preallocated file\n\n");
        sb.append("| write size | threads | MB/s | writes/s | p50 µs | p99 µs | p99.9 µs | max µs | CPU cores "
                + "| disk busy | disk MB/s | disk flushes/s |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RawDirectWrite.Result c : r.raw()) {
            Latency l = c.latency();
            sb.append(cells(size(c.writeSize()), c.threads(), f1(c.mbPerSec()), f0(c.writesPerSec()), f0(l.p50Us()),
                    f0(l.p99Us()), f0(l.p999Us()), f0(l.maxUs()), f2(c.cpuCores()), pct(c.disk().utilization()),
                    f0(c.disk().mbPerSec()), f0(c.disk().flushesPerSec())));
        }
        FioProbe.Result fio = r.fio();
        sb.append('\n').append(fio.ran()
                ? String.format(Locale.ROOT, "fio (1 MiB, QD1, O_DIRECT + O_SYNC): **%.1f MB/s**, %.0f writes/s "
                        + "(`%s`)%n", fio.mbPerSec(), fio.writesPerSec(), fio.command())
                : "fio: " + fio.note() + (fio.command().isEmpty() ? "" : " (`" + fio.command() + "`)") + "\n");
        sb.append('\n');

        double ref = r.rawReferenceMbPerSec();
        double best = r.rawBestMbPerSec();
        sb.append("#### WAL appends, closed loop (each appender waits for durability before its next append)\n\n");
        sb.append(String.format(Locale.ROOT, "Ratios: WAL MB/s ÷ raw 1 MiB QD1 (%.1f MB/s, the device's durable "
                + "sequential bandwidth) and ÷ best raw (%.1f MB/s).%n%n", ref, best));
        closedTable(sb, r.grid(), ref, best);

        sb.append("\n#### wal.max.inflight.writes sweep (64 appenders × 16 KiB)\n\n");
        closedTable(sb, r.inflightSweep(), ref, best);

        WalLoad.OpenResult o = r.halfLoad();
        sb.append("\n#### Open loop at 50 % of the 64 × 16 KiB throughput\n\n");
        sb.append("One scheduler thread calls append at fixed intended times; appends are asynchronous, so as many "
                + "are outstanding as the WAL needs. Latency runs from the intended time (no coordinated omission); "
                + "WAL-side from the actual call; send lag is how late the scheduler was.\n\n");
        sb.append("| record | inflight | target appends/s | achieved appends/s | MB/s | p50 µs | p99 µs | p99.9 µs "
                + "| max µs | WAL-side p99 µs | send lag p99 µs | max outstanding | records/write | CPU cores "
                + "| disk busy |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        if (o != null) {
            Latency l = o.latency();
            sb.append(cells(size(o.recordSize()), o.maxInflight(), f0(o.targetRate()), f0(o.achievedRate()),
                    f1(o.mbPerSec()), f0(l.p50Us()), f0(l.p99Us()), f0(l.p999Us()), f0(l.maxUs()),
                    f0(o.service().p99Us()), f0(o.sendLag().p99Us()), o.maxOutstanding(), f1(o.wal().recordsPerWrite()), f2(o.cpuCores()),
                    pct(o.disk().utilization())));
            if (o.aborted() != null) {
                sb.append("\nStopped early: ").append(o.aborted()).append('\n');
            }
        }

        sb.append("\n#### Against the issue's targets\n\n| target | measured | met |\n|---|---|---|\n");
        WalLoad.ClosedResult c = r.gridCell(16 << 10, 64);
        if (c != null) {
            sb.append(String.format(Locale.ROOT, "| WAL ≥ %.1f × raw bandwidth, 64 appenders × 16 KiB | %.1f MB/s = "
                    + "%.2f × raw 1 MiB QD1, %.2f × best raw | %s |%n", TARGET_RATIO, c.mbPerSec(),
                    c.mbPerSec() / ref, c.mbPerSec() / best, c.mbPerSec() / ref >= TARGET_RATIO ? "yes" : "**no**"));
        }
        if (o != null) {
            sb.append(String.format(Locale.ROOT, "| p99 ≤ 2 ms at half that load (16 KiB, open loop) | p99 %.0f µs "
                    + "at %.0f appends/s | %s |%n", o.latency().p99Us(), o.achievedRate(),
                    o.latency().p99Us() <= TARGET_P99_US && o.aborted() == null ? "yes" : "**no**"));
        }
        return sb.toString();
    }

    private static void closedTable(StringBuilder sb, List<WalLoad.ClosedResult> cells, double ref, double best) {
        sb.append("| record | appenders | inflight | MB/s | appends/s | p50 µs | p99 µs | p99.9 µs | max µs "
                + "| records/write | avg write | WAL write MB/s | ÷ raw 1 MiB QD1 | ÷ best raw | CPU cores | disk busy "
                + "| disk MB/s |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (WalLoad.ClosedResult c : cells) {
            Latency l = c.latency();
            sb.append(cells(size(c.recordSize()), c.appenders(), c.maxInflight(), f1(c.mbPerSec()),
                    f0(c.appendsPerSec()), f0(l.p50Us()), f0(l.p99Us()), f0(l.p999Us()), f0(l.maxUs()),
                    f1(c.wal().recordsPerWrite()), avgWrite(c.wal()), f1(c.deviceMbPerSec()),
                    f2(c.mbPerSec() / ref), f2(c.mbPerSec() / best), f2(c.cpuCores()), pct(c.disk().utilization()),
                    f0(c.disk().mbPerSec())));
        }
    }

    private static String avgWrite(WalLoad.WalDelta d) {
        double avg = d.avgWriteBytes();
        return Double.isFinite(avg) ? size(Math.round(avg)) : "–";
    }

    private static String window(BenchOptions.Window w) {
        return String.format(Locale.ROOT, "%.1f s warm-up + %.1f s measured", w.warmupMs() / 1000.0,
                w.measureMs() / 1000.0);
    }

    private static void row(StringBuilder sb, String key, String value) {
        sb.append("| ").append(key).append(" | ").append(value).append(" |\n");
    }

    private static String cells(Object... values) {
        StringBuilder sb = new StringBuilder("|");
        for (Object v : values) {
            sb.append(' ').append(v).append(" |");
        }
        return sb.append('\n').toString();
    }

    /** A byte count as KiB/MiB/GiB when exact to one decimal, else bytes. */
    static String size(long bytes) {
        if (bytes >= 1L << 30) {
            return trim(bytes / (double) (1L << 30)) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return trim(bytes / (double) (1L << 20)) + " MiB";
        }
        if (bytes >= 1L << 10) {
            return trim(bytes / 1024.0) + " KiB";
        }
        return bytes + " B";
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String pct(double fraction) {
        return Double.isFinite(fraction) ? String.format(Locale.ROOT, "%.0f %%", fraction * 100) : "–";
    }

    static String f0(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.0f", v) : "–";
    }

    static String f1(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f", v) : "–";
    }

    static String f2(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "–";
    }
}
