package io.aloft.bench.fetch;

import io.aloft.bench.cluster.BrokerCpu;
import io.aloft.bench.cluster.Machine;
import io.aloft.servers.AloftServer;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Broker CPU per MB consumed by one consumer of 1,000 partitions (1,000 topics of one partition),
 * with incremental fetch sessions (KIP-227, Kafka's default 1,000 slots) and without (0 slots:
 * every fetch lists and answers all 1,000 partitions, as before sessions). For each setting a fresh
 * Aloft broker runs as a child process and its CPU time is read from {@code /proc/<pid>/stat}
 * (user + system) around each phase:
 * <ol>
 *   <li><b>catch-up</b>: the partitions are filled first, then the consumer reads everything from
 *       the beginning;</li>
 *   <li><b>tail</b>: a producer writes at a steady rate spread over all partitions while the
 *       consumer keeps up (the broker's CPU then includes the produce path, the same in both
 *       settings);</li>
 *   <li><b>idle</b>: nothing is written; the consumer's fetches wait out their 500 ms on 1,000 empty
 *       partitions;</li>
 *   <li><b>no fetches</b>: the consumer pauses every partition, so the broker's CPU is its own
 *       background work;</li>
 *   <li><b>idle, 10 ms max wait</b>: a new consumer at the end of every partition with
 *       {@code fetch.max.wait.ms=10}, so that about 100 fetches a second of 1,000 empty
 *       partitions stand out of the background: broker CPU per fetch, above the background.</li>
 * </ol>
 * With {@code --rounds N} the two settings alternate N times (1 by default). Compaction is
 * pushed beyond the run ({@code s3.compaction.interval.ms=600000}) so that it lands in no phase.
 *
 * <p>With {@code --with-kafka}, Apache Kafka 4.3.1 runs the same phases with the same two
 * settings afterwards, for reference.
 *
 * <p>Usage: {@code FetchBenchmark --dir DIR --json-dir DIR [--quick] [--rounds N] [--with-kafka]
 * [--slots 0,1000]} ({@code --slots}: the settings of max.incremental.fetch.session.cache.slots to run). Progress on
 * stderr, Markdown on stdout, copies in the JSON directory. Confined to its main thread.
 */
public final class FetchBenchmark {
    private static final int TOPICS = 1000;
    private static final int RECORD_BYTES = 1024;
    private static final String SLOTS_KEY = "max.incremental.fetch.session.cache.slots";
    /** The idle fetches whose cost is measured one by one: many, so that they stand out of the broker's background. */
    private static final int FAST_WAIT_MS = 10;
    /** Longer than the stream store's upload interval (10 s). */
    private static final Duration SETTLE = Duration.ofSeconds(12);

    /** One broker and setting. */
    private record Mode(String system, String name, int slots) {
    }

    /** CPU seconds and consumer figures of one phase. */
    private record Phase(double cpuSeconds, double wallSeconds, FetchLoad.Consumed consumed) {
        double mb() {
            return consumed.bytes() / 1e6;
        }

        double cpuPerMb() {
            return cpuSeconds / mb();
        }
    }

    private record Run(Mode mode, int round, Phase catchUp, Phase tail, Phase idle, Phase fastIdle, Phase baseline) {
        /** Broker CPU milliseconds per fetch of {@code p}, above the broker's CPU without any fetch. */
        double cpuMsPerFetch(Phase p) {
            double extra = p.cpuSeconds() - baseline.cpuSeconds() * p.wallSeconds() / baseline.wallSeconds();
            return 1000 * extra / Math.max(1, p.consumed().fetches());
        }
    }

    private final boolean quick;
    private final int rounds;
    private final boolean withKafka;
    private final List<Integer> slotSettings;
    private final Path work;

    private FetchBenchmark(boolean quick, int rounds, boolean withKafka, List<Integer> slotSettings, Path work) {
        this.quick = quick;
        this.rounds = rounds;
        this.withKafka = withKafka;
        this.slotSettings = slotSettings;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of("bench/target");
        Path jsonDir = dir;
        boolean quick = false;
        Integer rounds = null;
        boolean withKafka = false;
        List<Integer> slots = List.of(0, 1000);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--with-kafka" -> withKafka = true;
                case "--slots" -> slots = Stream.of(args[++i].split(",")).map(v -> Integer.parseInt(v.trim())).toList();
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir, "fetch-bench-");
        try {
            new FetchBenchmark(quick, rounds != null ? rounds : 1, withKafka, slots, work).run(jsonDir);
        } finally {
            deleteTree(work);
        }
        System.exit(0);
    }

    private void run(Path jsonDir) throws Exception {
        int perPartition = quick ? 24 : 64;
        Duration tail = Duration.ofSeconds(quick ? 15 : 30);
        Duration idle = Duration.ofSeconds(quick ? 10 : 30);
        int tailRate = 2000;
        String loadAtStart = Machine.loadAverage();
        List<Run> runs = new ArrayList<>();
        List<Mode> modes = new ArrayList<>();
        for (String system : withKafka ? List.of("Aloft", "Kafka 4.3.1") : List.of("Aloft")) {
            for (int slots : slotSettings) {
                String name = (slots == 0 ? "sessionless" : "sessions") + " (slots=" + slots + ")";
                modes.add(new Mode(system, name, slots));
            }
        }
        for (int round = 1; round <= rounds; round++) {
            for (Mode mode : modes) {
                runs.add(runOne(mode, round, perPartition, tailRate, tail, idle));
            }
        }
        String report = report(runs, perPartition, tailRate, tail, idle, loadAtStart);
        String stamp = Instant.now().toString().replace(':', '-');
        Files.createDirectories(jsonDir);
        Files.writeString(jsonDir.resolve("fetch-bench-" + stamp + ".md"), report);
        Files.writeString(jsonDir.resolve("fetch-bench-" + stamp + ".json"), json(runs));
        System.out.print(report);
    }

    private Run runOne(Mode mode, int round, int perPartition, int tailRate, Duration tail, Duration idle)
            throws Exception {
        progress("round " + round + ", " + mode.system() + ", " + mode.name() + ": starting a broker");
        try (ChildBroker server = server(mode)) {
            server.start();
            long pid = server.process().pid();
            progress("broker pid " + pid);
            try (FetchLoad load = new FetchLoad(server.bootstrap(), TOPICS, RECORD_BYTES)) {
                progress("creating " + TOPICS + " topics");
                load.createTopics();
                progress("filling " + TOPICS + " partitions with " + perPartition + " x " + RECORD_BYTES + " B");
                load.fill(perPartition);
                load.startConsumer();
                progress("catch-up read");
                Phase catchUp = measure(pid, () -> load.consumeAll(Duration.ofMinutes(5)));
                progress("tail read at " + tailRate + " records/s for " + tail.toSeconds() + " s");
                load.startPacedProducer(tailRate);
                load.consumeFor(Duration.ofSeconds(3)); // the producer up to speed
                Phase tailPhase = measure(pid, () -> load.consumeFor(tail));
                load.stopPacedProducer();
                load.consumeAll(Duration.ofMinutes(1));
                progress("settling for " + SETTLE.toSeconds() + " s (the last upload of written data)");
                load.consumeFor(SETTLE);
                progress("idle for " + idle.toSeconds() + " s");
                Phase idlePhase = measure(pid, () -> load.consumeFor(idle));
                progress("no fetches for " + idle.toSeconds() + " s (the broker's own background work)");
                Phase baseline = measure(pid, () -> load.pausedFor(idle));
                progress("idle with fetch.max.wait.ms=" + FAST_WAIT_MS + " for " + idle.toSeconds() + " s");
                load.restartConsumerAtEnd(FAST_WAIT_MS);
                load.consumeFor(Duration.ofSeconds(2)); // the new consumer's first full fetch and session
                Phase fastIdle = measure(pid, () -> load.consumeFor(idle));
                Run run = new Run(mode, round, catchUp, tailPhase, idlePhase, fastIdle, baseline);
                progress(String.format(Locale.ROOT, "catch-up %.4f, tail %.4f CPU s/MB; %.2f CPU ms per idle fetch",
                        catchUp.cpuPerMb(), tailPhase.cpuPerMb(), run.cpuMsPerFetch(fastIdle)));
                return run;
            }
        }
    }

    private ChildBroker server(Mode mode) throws IOException {
        Map<String, String> slots = Map.of(SLOTS_KEY, Integer.toString(mode.slots()));
        if (mode.system().startsWith("Kafka")) {
            return new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "2g", false, work, slots,
                    Duration.ofSeconds(120));
        }
        // Compaction (every minute by default) would land in some phases and not others: pushed
        // beyond the run. Uploads (every 10 s while data comes in) are let through before the idle phases.
        Map<String, String> props = new java.util.HashMap<>(slots);
        props.put("s3.compaction.interval.ms", "600000");
        return new AloftServer("2g", false, work, props, Duration.ofSeconds(120));
    }

    private interface Measured {
        FetchLoad.Consumed run() throws Exception;
    }

    private static Phase measure(long pid, Measured body) throws Exception {
        double cpu0 = BrokerCpu.seconds(pid);
        long t0 = System.nanoTime();
        FetchLoad.Consumed consumed = body.run();
        long t1 = System.nanoTime();
        double cpu1 = BrokerCpu.seconds(pid);
        return new Phase(cpu1 - cpu0, (t1 - t0) / 1e9, consumed);
    }

    private String report(List<Run> runs, int perPartition, int tailRate, Duration tail, Duration idle,
            String loadAtStart) {
        StringBuilder md = new StringBuilder();
        String rev = System.getenv().getOrDefault("ALOFT_GIT_REV", "unknown");
        md.append("Measured ").append(Instant.now()).append(" with `scripts/bench-fetch.sh`")
                .append(quick ? " --quick" : "").append(" (git ").append(rev).append("). ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, ")
                .append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version"))
                .append(", load average at start ").append(loadAtStart).append(", at end ").append(Machine.loadAverage())
                .append(". One broker per row, a child process with -Xmx2g: Aloft (objects on file://, compaction "
                        + "pushed beyond the run)")
                .append(withKafka ? " and Apache Kafka 4.3.1 (KRaft, 1 node, default durability)" : "").append("; ")
                .append(TOPICS).append(" topics x 1 partition, one kafka-clients 4.3.1 consumer (defaults) assigned "
                        + "all of them. Catch-up: ")
                .append(perPartition).append(" x ").append(RECORD_BYTES).append(" B records per partition read from "
                        + "the beginning. Tail: ")
                .append(tailRate).append(" records/s over all partitions for ").append(tail.toSeconds())
                .append(" s. Idle: ").append(idle.toSeconds()).append(" s with nothing written (then as long with "
                        + "no fetch, and as long with a consumer whose fetches wait at most 10 ms). CPU: broker "
                        + "process user + system from /proc/<pid>/stat; MB: 10^6 bytes of record values read.\n\n");
        md.append("| broker | setting | round | catch-up MB | catch-up CPU s | **catch-up CPU s/MB** | tail MB | "
                + "tail CPU s | **tail CPU s/MB** | idle: broker CPU % of a core (without fetches) | idle fetches/s "
                + "at 10 ms max wait | **CPU ms per idle fetch** | fetches (catch-up / tail / idle) | consumer "
                + "bytes sent per fetch (tail) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Run r : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f | %.2f | %.4f | %.1f | %.2f | %.4f "
                    + "| %.1f (%.1f) | %.0f | %.3f | %d / %d / %d | %.0f |%n",
                    r.mode().system(), r.mode().name(), r.round(), r.catchUp().mb(), r.catchUp().cpuSeconds(),
                    r.catchUp().cpuPerMb(), r.tail().mb(), r.tail().cpuSeconds(), r.tail().cpuPerMb(),
                    100 * r.idle().cpuSeconds() / r.idle().wallSeconds(),
                    100 * r.baseline().cpuSeconds() / r.baseline().wallSeconds(),
                    r.fastIdle().consumed().fetches() / r.fastIdle().wallSeconds(), r.cpuMsPerFetch(r.fastIdle()),
                    r.catchUp().consumed().fetches(),
                    r.tail().consumed().fetches(), r.idle().consumed().fetches(),
                    (double) r.tail().consumed().bytesSent() / Math.max(1, r.tail().consumed().fetches())));
        }
        return md.toString();
    }

    private static String json(List<Run> runs) {
        StringBuilder json = new StringBuilder("{\n  \"runs\": [\n");
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            json.append(String.format(Locale.ROOT, "    {\"broker\": \"%s\", \"setting\": \"%s\", "
                    + "\"slots\": %d, \"round\": %d, "
                    + "\"catchUp\": %s, \"tail\": %s, \"idle\": %s, \"noFetches\": %s, \"idle10msWait\": %s}%s%n",
                    r.mode().system(), r.mode().name(), r.mode().slots(), r.round(), json(r.catchUp()), json(r.tail()),
                    json(r.idle()), json(r.baseline()), json(r.fastIdle()), i + 1 < runs.size() ? "," : ""));
        }
        return json.append("  ]\n}\n").toString();
    }

    private static String json(Phase p) {
        FetchLoad.Consumed c = p.consumed();
        return String.format(Locale.ROOT, "{\"cpuSeconds\": %.3f, \"wallSeconds\": %.3f, \"records\": %d, "
                + "\"bytes\": %d, "
                + "\"fetches\": %d, \"consumerBytesSent\": %d, \"consumerBytesReceived\": %d}", p.cpuSeconds(),
                p.wallSeconds(), c.records(), c.bytes(), c.fetches(), c.bytesSent(), c.bytesReceived());
    }


    private static void progress(String what) {
        System.err.println("[fetch-bench] " + what);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
