package io.aloft.bench.cpu;

import io.aloft.bench.cluster.BrokerCpu;
import io.aloft.bench.cluster.Machine;
import io.aloft.bench.cluster.Scratch;
import io.aloft.servers.AloftServer;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Broker CPU per byte, produce against fetch, measured in one run (issue 15, item 5: fetch must
 * cost less CPU per byte than produce). For Aloft (embedded defaults, objects on {@code file://})
 * and, unless {@code --no-kafka}, Apache Kafka 4.3.1, one fresh broker each runs as a child process,
 * and its CPU time (user + system, {@code /proc/<pid>/stat}) is read around each phase:
 * <ol>
 *   <li><b>warm-up</b> (not measured): produce at the fixed rate with a tail consumer, then as fast
 *       as acknowledged, so both paths are compiled; a drain; then 10 s of nothing, whose CPU is the
 *       broker's idle background;</li>
 *   <li><b>produce, as fast as acknowledged</b>: up to 1 GiB or 60 s;</li>
 *   <li><b>produce at a fixed rate</b> (20,000 records/s) for 30 s, no consumer;</li>
 *   <li><b>produce at the same rate with a tail consumer</b> (a new group at the end of the topic)
 *       for 30 s; the consumer's share, <b>tail fetch</b>, is this phase's CPU less the previous
 *       phase's CPU per MB produced times the MB produced here, per MB consumed;</li>
 *   <li><b>catch-up fetch</b>: the producer stopped, a new group reads from offset 0 up to 1 GiB or
 *       60 s. Everything written before it is its backlog, over 2 GB, so on Aloft the bytes it reads
 *       are long out of the log cache (set to 256 MiB here, half the default) and come from objects;
 *       Kafka reads them from its segment files (in the page cache: the machine has the memory).</li>
 * </ol>
 * Each produce phase ends with a 12 s drain, longer than Aloft's upload interval (10 s), so the
 * upload of what it wrote falls in it; the idle background over the drain is subtracted. Compaction
 * is pushed beyond the run ({@code s3.compaction.interval.ms=600000}). {@code --quick}: 10,000
 * records/s for 15 s, 256 MiB or 20 s as fast as acknowledged, 384 MiB or 30 s of catch-up.
 *
 * <p>Usage: {@code CpuPerByteBenchmark --dir DIR --json-dir DIR [--quick] [--rounds N] [--no-kafka]
 * [--jfr DIR]} ({@code --jfr}: a flight recording of the Aloft broker per phase, in DIR). Progress on
 * stderr, Markdown on stdout, copies in the JSON directory. Confined to its main thread.
 */
public final class CpuPerByteBenchmark {
    private static final int PARTITIONS = 8;
    private static final int RECORD_BYTES = 1024;
    private static final long LOG_CACHE_BYTES = 256L << 20;
    /** Longer than Aloft's upload interval (10 s). */
    private static final Duration DRAIN = Duration.ofSeconds(12);
    private static final Duration IDLE = Duration.ofSeconds(10);

    private final boolean quick;
    private final Path work;
    private final BrokerProfile profile;
    private final int fixedRate;
    private final Duration fixedFor;
    private final long maxBytes;
    private final Duration maxFor;

    private CpuPerByteBenchmark(boolean quick, Path work, BrokerProfile profile) {
        this.quick = quick;
        this.work = work;
        this.profile = profile;
        fixedRate = quick ? 10_000 : 20_000;
        fixedFor = Duration.ofSeconds(quick ? 15 : 30);
        maxBytes = quick ? 256L << 20 : 1L << 30;
        maxFor = Duration.ofSeconds(quick ? 20 : 60);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of("bench/target");
        Path jsonDir = dir;
        Path jfr = null;
        boolean quick = false;
        int rounds = 1;
        boolean withKafka = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--no-kafka" -> withKafka = false;
                case "--with-kafka" -> withKafka = true;
                case "--jfr" -> jfr = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (withKafka) {
            ApacheKafkaServer.findLibsDir(); // before a long run, not after Aloft's part
        }
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir, "cpu-bench-");
        try {
            new CpuPerByteBenchmark(quick, work, new BrokerProfile(jfr)).run(jsonDir, rounds, withKafka);
        } finally {
            Scratch.deleteTree(work);
        }
        System.exit(0);
    }

    private void run(Path jsonDir, int rounds, boolean withKafka) throws Exception {
        String loadStart = Machine.loadAverage();
        List<CpuReport.Run> runs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String system : withKafka ? List.of("Aloft", "Kafka 4.3.1") : List.of("Aloft")) {
                runs.add(runOne(system, round));
            }
        }
        CpuReport.Setup setup = new CpuReport.Setup(quick, PARTITIONS, RECORD_BYTES, fixedRate,
                "Aloft at its embedded defaults (WAL file with Direct IO, objects on file://) but "
                        + "s3.log.cache.size.bytes=256 MiB and compaction pushed beyond the run"
                        + (withKafka ? "; Apache Kafka 4.3.1 (KRaft, 1 node, default durability)" : ""),
                loadStart, Machine.loadAverage());
        String report = CpuReport.markdown(runs, setup);
        String stamp = Instant.now().toString().replace(':', '-');
        Files.createDirectories(jsonDir);
        Files.writeString(jsonDir.resolve("cpu-bench-" + stamp + ".md"), report);
        Files.writeString(jsonDir.resolve("cpu-bench-" + stamp + ".json"), CpuReport.json(runs, setup));
        System.out.print(report);
    }

    private CpuReport.Run runOne(String system, int round) throws Exception {
        String loadStart = Machine.loadAverage();
        progress("round " + round + ", " + system + ": starting a broker");
        try (ChildBroker server = server(system)) {
            server.start();
            long pid = server.process().pid();
            progress("broker pid " + pid);
            boolean profiled = system.equals("Aloft");
            try (CpuLoad load = new CpuLoad(server.bootstrap(), PARTITIONS, RECORD_BYTES)) {
                load.createTopic();
                progress("warm-up");
                try (CpuLoad.Reader warm = load.reader("warm-up", false)) {
                    load.startPaced(fixedRate);
                    warm.pollFor(Duration.ofSeconds(8));
                    load.stopPaced();
                }
                load.produceMax(128L << 20, Duration.ofSeconds(5));
                sleep(DRAIN);
                progress("idle for " + IDLE.toSeconds() + " s");
                double cpu0 = BrokerCpu.seconds(pid);
                sleep(IDLE);
                double idleRate = (BrokerCpu.seconds(pid) - cpu0) / IDLE.toSeconds();

                progress("produce as fast as acknowledged: " + (maxBytes >> 20) + " MiB or " + maxFor.toSeconds()
                        + " s");
                PhaseClock clock = clock(pid, profiled, "produce-max", load, null);
                load.produceMax(maxBytes, maxFor);
                clock.active();
                sleep(DRAIN);
                CpuReport.Phase produceMax = clock.end("produce, as fast as acknowledged", idleRate, false);

                progress("produce at " + fixedRate + " records/s for " + fixedFor.toSeconds() + " s");
                clock = clock(pid, profiled, "produce-fixed", load, null);
                load.startPaced(fixedRate);
                sleep(fixedFor);
                load.stopPaced();
                clock.active();
                sleep(DRAIN);
                CpuReport.Phase produceFixed = clock.end("produce at " + fixedRate + " records/s", idleRate, false);

                progress("the same with a tail consumer");
                CpuReport.Phase both;
                try (CpuLoad.Reader tail = load.reader("tail", false)) {
                    clock = clock(pid, profiled, "produce-tail", load, tail);
                    load.startPaced(fixedRate);
                    tail.pollFor(fixedFor);
                    load.stopPaced();
                    clock.active();
                    tail.pollFor(DRAIN);
                    both = clock.end("produce at " + fixedRate + " records/s + tail consumer", idleRate, false);
                }
                CpuReport.Phase tailFetch = attribute(both, produceFixed, clock.consumedMb());

                double backlogMb = load.ackedBytes() / 1e6;
                long readLimit = quick ? 384L << 20 : 1L << 30;
                Duration readFor = Duration.ofSeconds(quick ? 30 : 60);
                progress(String.format(Locale.ROOT, "catch-up read from offset 0 of a %.0f MB backlog: %d MiB or %d s",
                        backlogMb, readLimit >> 20, readFor.toSeconds()));
                CpuReport.Phase catchUp;
                try (CpuLoad.Reader reader = load.reader("catch-up", true)) {
                    clock = clock(pid, profiled, "catch-up", load, reader);
                    reader.pollUpTo(readLimit, readFor);
                    clock.active();
                    catchUp = clock.end("catch-up fetch from offset 0", idleRate, true);
                }
                CpuReport.Run run = new CpuReport.Run(system, server.description(), round, produceMax, produceFixed,
                        both, tailFetch, catchUp, 100 * idleRate, backlogMb, loadStart, Machine.loadAverage());
                progress(String.format(Locale.ROOT, "CPU ms per MB: produce %.2f (max) %.2f (fixed), tail fetch "
                        + "%.2f, catch-up %.2f", produceMax.cpuMsPerMb(), produceFixed.cpuMsPerMb(),
                        tailFetch.cpuMsPerMb(), catchUp.cpuMsPerMb()));
                return run;
            }
        }
    }

    /**
     * The tail consumer's share of {@code both}: its CPU less what producing its MB cost at the
     * same rate without a consumer ({@code produceOnly}), per MB consumed.
     */
    private static CpuReport.Phase attribute(CpuReport.Phase both, CpuReport.Phase produceOnly, double consumedMb) {
        double produceCpu = produceOnly.cpuSeconds() / produceOnly.mb() * both.mb();
        return new CpuReport.Phase("tail fetch (the row above less produce at the same rate)", consumedMb,
                both.cpuSeconds() - produceCpu, both.activeSeconds(), both.drainSeconds(), both.load(), 0,
                both.fetches(), both.commits());
    }

    private PhaseClock clock(long pid, boolean profiled, String recording, CpuLoad load, CpuLoad.Reader reader)
            throws IOException, InterruptedException {
        return new PhaseClock(pid, profile, profiled ? recording : null, load, reader);
    }

    private ChildBroker server(String system) throws IOException {
        if (system.startsWith("Kafka")) {
            return new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "2g", false, work, Map.of(),
                    Duration.ofSeconds(120));
        }
        // Compaction (every minute by default) would land in some phases and not others: pushed
        // beyond the run. A smaller log cache than the default, so that the catch-up backlog is
        // several times its size even in --quick.
        return new AloftServer("2g", false, work, Map.of("s3.compaction.interval.ms", "600000",
                "s3.log.cache.size.bytes", Long.toString(LOG_CACHE_BYTES)), Duration.ofSeconds(120));
    }

    private static void sleep(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    private static void progress(String what) {
        System.err.println("[cpu-bench] " + what);
    }
}
