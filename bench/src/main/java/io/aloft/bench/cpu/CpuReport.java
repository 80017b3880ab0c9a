package io.aloft.bench.cpu;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The CPU-per-byte benchmark's figures and their Markdown and JSON forms. Immutable records and a
 * stateless formatter.
 */
final class CpuReport {
    private CpuReport() {
    }

    /**
     * One measured phase: {@code mb} of record values (10^6 bytes) produced or consumed, the broker's
     * CPU seconds over it (its drain included, less the idle background over the drain), the seconds
     * the load ran (without the drain), the 1-minute load average when it began, and the requests
     * the clients sent over it.
     */
    record Phase(String name, double mb, double cpuSeconds, double activeSeconds, double drainSeconds, String load,
            long produceRequests, long fetches, long commits) {
        double cpuMsPerMb() {
            return 1000 * cpuSeconds / mb;
        }

        double mbPerSecond() {
            return mb / activeSeconds;
        }

        String requests() {
            List<String> parts = new java.util.ArrayList<>();
            if (produceRequests > 0) {
                parts.add(String.format(Locale.ROOT, "%,d produce", produceRequests));
            }
            if (fetches > 0 || commits > 0) {
                parts.add(String.format(Locale.ROOT, "%,d fetch + %,d commit", fetches, commits));
            }
            return String.join(", ", parts);
        }
    }

    /**
     * One broker's run: its phases in order, the tail consumer's share of the produce-plus-consume
     * phase ({@code tailFetch}, derived), the broker's idle CPU (% of a core), the backlog the
     * catch-up reader faced, and the load averages at the start and end.
     */
    record Run(String system, String description, int round, Phase produceMax, Phase produceFixed,
            Phase produceAndTail, Phase tailFetch, Phase catchUp, double idleCorePercent, double backlogMb,
            String loadStart, String loadEnd) {
        List<Phase> rows() {
            return List.of(produceMax, produceFixed, produceAndTail, tailFetch, catchUp);
        }
    }

    /** What the header says about the run's shape. */
    record Setup(boolean quick, int partitions, int recordBytes, int fixedRate, String aloftNote, String loadStart,
            String loadEnd) {
    }

    static String markdown(List<Run> runs, Setup s) {
        StringBuilder md = new StringBuilder();
        String rev = System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown");
        md.append("Measured ").append(Instant.now()).append(" with `scripts/bench-cpu.sh`")
                .append(s.quick() ? " --quick" : "").append(" (git ").append(rev).append("). ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, ")
                .append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version"))
                .append(", load average at start ").append(s.loadStart()).append(", at end ").append(s.loadEnd())
                .append(". One fresh broker per system, a child process with -Xmx2g: ").append(s.aloftNote())
                .append(". One topic of ").append(s.partitions()).append(" partitions; kafka-clients 4.3.1, ")
                .append(s.recordBytes()).append(" B random values, acks=all, idempotent, linger.ms=5, "
                        + "batch.size=128 KiB; consumers in groups, 10 MiB per partition per fetch, a commit "
                        + "after each poll. CPU: broker process user + system from /proc/<pid>/stat over the "
                        + "phase and a drain after it (so that Aloft's upload of what a phase wrote falls in "
                        + "it), less the broker's idle CPU over the drain. MB: 10^6 bytes of record values "
                        + "acknowledged (produce) or consumed (fetch); MB/s over the phase without the drain. "
                        + "*tail fetch* is the produce + tail consumer row less the produce-only row at the same "
                        + "rate (").append(s.fixedRate()).append(" records/s), scaled to the bytes produced: the "
                        + "consumer's share, per MB it read.\n\n");
        for (Run r : runs) {
            md.append("**").append(r.system()).append("**, round ").append(r.round()).append(" (")
                    .append(r.description()).append("; load ").append(r.loadStart()).append(" at start, ")
                    .append(r.loadEnd()).append(" at end; idle broker ")
                    .append(String.format(Locale.ROOT, "%.1f", r.idleCorePercent()))
                    .append("% of a core; catch-up backlog ")
                    .append(String.format(Locale.ROOT, "%.0f", r.backlogMb())).append(" MB)\n\n");
            md.append("| phase | MB | broker CPU s | CPU ms per MB | MB/s | requests | load (1 min) at start |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (Phase p : r.rows()) {
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %.1f | %s | %s |%n", p.name(),
                        p.mb(), p.cpuSeconds(), p.cpuMsPerMb(), p.mbPerSecond(), p.requests(), p.load()));
            }
            md.append(String.format(Locale.ROOT, "%nFetch ÷ produce, CPU per MB: tail fetch ÷ produce at the same "
                    + "rate **%.2f**; catch-up ÷ produce as fast as acknowledged **%.2f**; catch-up ÷ produce at "
                    + "the fixed rate %.2f.%n%n", ratio(r.tailFetch(), r.produceFixed()),
                    ratio(r.catchUp(), r.produceMax()), ratio(r.catchUp(), r.produceFixed())));
        }
        return md.toString();
    }

    static double ratio(Phase a, Phase b) {
        return a.cpuMsPerMb() / b.cpuMsPerMb();
    }

    static String json(List<Run> runs, Setup s) {
        StringBuilder json = new StringBuilder();
        json.append(String.format(Locale.ROOT, "{%n  \"rev\": \"%s\", \"quick\": %b, \"partitions\": %d, "
                + "\"recordBytes\": %d, \"fixedRate\": %d, \"loadStart\": \"%s\", \"loadEnd\": \"%s\",%n  \"runs\": [%n",
                System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown"), s.quick(), s.partitions(), s.recordBytes(),
                s.fixedRate(), s.loadStart(), s.loadEnd()));
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            json.append(String.format(Locale.ROOT, "    {\"system\": \"%s\", \"round\": %d, \"idleCorePercent\": %.2f, "
                    + "\"backlogMb\": %.1f, \"loadStart\": \"%s\", \"loadEnd\": \"%s\", \"phases\": [",
                    r.system(), r.round(), r.idleCorePercent(), r.backlogMb(), r.loadStart(), r.loadEnd()));
            List<Phase> rows = r.rows();
            for (int j = 0; j < rows.size(); j++) {
                Phase p = rows.get(j);
                json.append(String.format(Locale.ROOT, "%n      {\"phase\": \"%s\", \"mb\": %.3f, \"cpuSeconds\": %.3f, "
                        + "\"activeSeconds\": %.3f, \"drainSeconds\": %.3f, \"cpuMsPerMb\": %.4f, \"load\": \"%s\", "
                        + "\"produceRequests\": %d, \"fetches\": %d, \"commits\": %d}%s",
                        p.name(), p.mb(), p.cpuSeconds(), p.activeSeconds(), p.drainSeconds(), p.cpuMsPerMb(),
                        p.load(), p.produceRequests(), p.fetches(), p.commits(), j + 1 < rows.size() ? "," : ""));
            }
            json.append(String.format(Locale.ROOT, "]}%s%n", i + 1 < runs.size() ? "," : ""));
        }
        return json.append("  ]\n}\n").toString();
    }
}
