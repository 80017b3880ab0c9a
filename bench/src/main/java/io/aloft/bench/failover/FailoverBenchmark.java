package io.aloft.bench.failover;

import io.aloft.bench.cluster.ClusterClients;
import io.aloft.bench.cluster.Progress;
import io.aloft.bench.cluster.Machine;
import io.aloft.bench.cluster.Scratch;
import io.aloft.bench.cluster.ServedProbe;
import io.aloft.controller.ControllerConfig;
import io.aloft.servers.AloftCluster;
import io.aloft.servers.NodeCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Broker failover benchmark (issue 14), two phases, every process a child on 127.0.0.1:
 * <ol>
 *   <li><b>Failover</b>, per setting (the WAL in object storage or the block WAL; the default
 *       {@code broker.session.timeout.ms} / {@code broker.heartbeat.interval.ms} and a lower pair):
 *       3 Aloft brokers (controller quorum embedded in all three, objects on one local versitygw),
 *       a topic of {@value #PARTITIONS} partitions with replication factor 1, a {@link
 *       SequencedProducer} at {@code --rate} records/s. {@link Rounds}: SIGKILL one broker
 *       (round-robin), time until every partition it led acknowledged a produce again, start it
 *       again, move its partitions back, wait for a steady load. Then the whole topic is read back
 *       ({@link LossCheck}): acknowledged records lost or duplicated, per round.</li>
 *   <li><b>WAL cost</b> ({@link WalCost}): one broker, the same open-loop load with the object WAL
 *       (at its default batch interval, or at each of {@code --wal-batch-intervals}) and with the
 *       block WAL, at each offered load of {@code --cost-mib-per-second}; produce latency, and the
 *       object WAL's PUTs per GiB.</li>
 * </ol>
 *
 * <p>Usage: {@code FailoverBenchmark --dir DIR --json-dir DIR [--quick] [--rounds N] [--wal
 * object|block|both] [--rate N] [--phases failover,cost] [--cost-mib-per-second N[,N...]]
 * [--wal-batch-intervals MS[,MS...]] [--cost-seconds N]}. Confined to its main thread (plus the clients' own).
 */
public final class FailoverBenchmark {
    static final int BROKERS = 3;
    static final String HEAP = "1g";
    static final String TOPIC = "failover";
    static final int PARTITIONS = 12;
    static final long LOW_SESSION_MS = 3_000;
    static final long LOW_HEARTBEAT_MS = 500;
    static final long WARMUP_MS = 5_000;
    /** The cluster being measured, for the shutdown hook. */
    static volatile NodeCluster current;

    /** One failover setting. */
    record Setting(boolean objectWal, boolean lowSession) {
        String label() {
            return (objectWal ? "object WAL" : "block WAL") + ", session " + sessionMs() + " ms";
        }

        long sessionMs() {
            return lowSession ? LOW_SESSION_MS : ControllerConfig.SESSION_TIMEOUT.defaultValue();
        }

        long heartbeatMs() {
            return lowSession ? LOW_HEARTBEAT_MS : ControllerConfig.HEARTBEAT_INTERVAL.defaultValue();
        }

        Map<String, String> properties() {
            return lowSession ? Map.of(ControllerConfig.SESSION_TIMEOUT_CONFIG, Long.toString(LOW_SESSION_MS),
                    ControllerConfig.HEARTBEAT_INTERVAL_CONFIG, Long.toString(LOW_HEARTBEAT_MS)) : Map.of();
        }
    }

    /** What one setting did; a failure leaves later fields empty and names the error. */
    static final class SettingResult {
        Setting setting;
        String description;
        final List<Rounds.Round> rounds = new ArrayList<>();
        LossCheck.Result loss;
        long loadAcked;
        long loadFailed;
        Map<String, Long> loadFailures = Map.of();
        String error;
    }

    final boolean quick;
    final int rounds;
    final String walMode;
    final int rate;
    final boolean failoverPhase;
    final boolean costPhase;
    final List<Integer> costMibPerSecond;
    /** The object WAL's batch intervals to measure; empty: its default only. */
    final List<Long> batchIntervalsMs;
    final int costSeconds;
    Path logDir;

    FailoverBenchmark(boolean quick, int rounds, String walMode, int rate, boolean failoverPhase, boolean costPhase,
            List<Integer> costMibPerSecond, List<Long> batchIntervalsMs, int costSeconds) {
        this.quick = quick;
        this.rounds = rounds;
        this.walMode = walMode;
        this.rate = rate;
        this.failoverPhase = failoverPhase;
        this.costPhase = costPhase;
        this.costMibPerSecond = List.copyOf(costMibPerSecond);
        this.batchIntervalsMs = List.copyOf(batchIntervalsMs);
        this.costSeconds = costSeconds;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Integer rounds = null;
        String wal = "object";
        int rate = 200;
        String phases = "failover,cost";
        List<Integer> costMib = List.of(5);
        List<Long> intervals = List.of();
        Integer costSeconds = null;
        Path dir = Path.of("bench/target");
        Path jsonDir = Path.of("bench/target");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                case "--rounds" -> rounds = positive("--rounds", args[++i]);
                case "--rate" -> rate = positive("--rate", args[++i]);
                case "--cost-mib-per-second" -> costMib = java.util.Arrays.stream(args[++i].split(","))
                        .map(v -> positive("--cost-mib-per-second", v)).toList();
                case "--wal-batch-intervals" -> intervals = java.util.Arrays.stream(args[++i].split(","))
                        .map(v -> (long) nonNegative("--wal-batch-intervals", v)).toList();
                case "--cost-seconds" -> costSeconds = positive("--cost-seconds", args[++i]);
                case "--phases" -> phases = args[++i];
                case "--wal" -> {
                    wal = args[++i];
                    if (!List.of("object", "block", "both").contains(wal)) {
                        throw new IllegalArgumentException("--wal: object, block or both, not " + wal);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (String phase : phases.split(",")) {
            if (!List.of("failover", "cost").contains(phase)) {
                throw new IllegalArgumentException("--phases: failover and/or cost, not " + phase);
            }
        }
        FailoverBenchmark bench = new FailoverBenchmark(quick, rounds != null ? rounds : quick ? 2 : 5, wal, rate,
                phases.contains("failover"), phases.contains("cost"), costMib, intervals,
                costSeconds != null ? costSeconds : quick ? 10 : 30);
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir.toAbsolutePath(), "failover-bench-");
        bench.logDir = jsonDir.toAbsolutePath().resolve("failover-bench-" + stamp + "-logs");
        FailoverReport report = new FailoverReport(bench, stamp, System.getenv().getOrDefault("ALOFT_GIT_REV",
                "unknown"), work);
        // On SIGTERM or Ctrl-C: the servers' own hook kills the child processes; this one also stops the
        // cluster in use and deletes the scratch data, which would otherwise stay behind.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            NodeCluster running = current;
            if (running != null) {
                running.close();
            }
            deleteTree(work);
        }, "failover-bench-cleanup"));
        int status = 0;
        try {
            if (bench.failoverPhase) {
                for (Setting s : bench.settings()) {
                    SettingResult r = bench.runSetting(s, work);
                    report.settings.add(r);
                    status = r.error != null ? 1 : status;
                }
            }
            if (bench.costPhase) {
                long windowMs = bench.costSeconds * 1000L;
                List<Long> objectIntervals = bench.batchIntervalsMs.isEmpty()
                        ? java.util.Collections.singletonList(null) : bench.batchIntervalsMs;
                for (int mib : bench.costMibPerSecond) {
                    for (Long interval : objectIntervals) {
                        report.costs.add(WalCost.run(true, work, bench.logDir, mib, interval, windowMs));
                    }
                    report.costs.add(WalCost.run(false, work, bench.logDir, mib, null, windowMs));
                }
                status = report.costs.stream().anyMatch(r -> r.error() != null) ? 1 : status;
            }
        } catch (Exception e) {
            progress("failed: %s", e);
            e.printStackTrace();
            status = 1;
        } finally {
            deleteTree(work);
        }
        report.elapsedSeconds = Progress.elapsedSeconds();
        report.loadAtEnd = Machine.loadAverage();
        Path results = Progress.writeReport(jsonDir, "failover-bench", stamp, report.markdown(), report.json());
        progress("done in %.0f s; results in %s; node logs in %s", report.elapsedSeconds, results, bench.logDir);
        System.exit(status); // client threads must not keep the JVM up
    }

    List<Setting> settings() {
        List<Setting> out = new ArrayList<>();
        for (boolean objectWal : walMode.equals("both") ? List.of(true, false) : List.of(walMode.equals("object"))) {
            out.add(new Setting(objectWal, false));
            out.add(new Setting(objectWal, true));
        }
        return out;
    }

    SettingResult runSetting(Setting s, Path work) {
        SettingResult r = new SettingResult();
        r.setting = s;
        AloftCluster cluster = new AloftCluster(BROKERS, HEAP, true, work, s.properties(), Duration.ofSeconds(180));
        if (s.objectWal()) {
            cluster.objectWal();
        }
        r.description = cluster.description();
        current = cluster;
        progress("%s: starting %d brokers", s.label(), BROKERS);
        SequencedProducer load = null;
        try {
            cluster.start();
            try (Admin admin = ClusterClients.admin(cluster.bootstrap());
                    ServedProbe probe = new ServedProbe(admin, cluster.bootstrap(), true)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(120,
                        TimeUnit.SECONDS);
                List<Integer> home = ClusterClients.awaitLeaders(admin, TOPIC, PARTITIONS, 60_000);
                progress("%s: topic %s placed %s", s.label(), TOPIC, home);
                load = new SequencedProducer(cluster.bootstrap(), TOPIC, PARTITIONS, rate).start();
                pause(WARMUP_MS);
                if (!load.allAckedWithin(Rounds.STEADY_MS)) {
                    throw new IllegalStateException("the load is not acknowledged on every partition after the "
                            + "warm-up");
                }
                try {
                    r.rounds.addAll(Rounds.run(cluster, admin, probe, load, TOPIC, home, rounds, s.objectWal(),
                            s.label()));
                } finally {
                    load.stop(30);
                    r.loadAcked = load.acked();
                    r.loadFailed = load.failed();
                    r.loadFailures = load.failures();
                }
                progress("%s: load stopped (%d acknowledged, %d failed %s); reading the topic back", s.label(),
                        r.loadAcked, r.loadFailed, r.loadFailures);
                r.loss = LossCheck.run(cluster.bootstrap(), TOPIC, PARTITIONS, load, rounds, 120_000);
                progress("%s: read %d records in %.1f s: %d acknowledged lost, %d duplicated, %d reordered%s",
                        s.label(), r.loss.consumed(), r.loss.seconds(), r.loss.total(r.loss.lost()),
                        r.loss.total(r.loss.duplicated()), r.loss.total(r.loss.reordered()),
                        r.loss.error() == null ? "" : "; " + r.loss.error());
            }
        } catch (Exception e) {
            r.error = e.toString();
            progress("%s: failed: %s", s.label(), e);
            e.printStackTrace();
            if (load != null && r.loss == null) {
                try {
                    load.close();
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        } finally {
            cluster.saveLogs(logDir.resolve(s.objectWal() ? "object" : "block").resolve("session-" + s.sessionMs()));
            cluster.close();
            current = null;
        }
        return r;
    }

    private static int positive(String option, String value) {
        int v = Integer.parseInt(value.trim());
        if (v < 1) {
            throw new IllegalArgumentException(option + ": a positive number, not " + value);
        }
        return v;
    }

    private static int nonNegative(String option, String value) {
        int v = Integer.parseInt(value.trim());
        if (v < 0) {
            throw new IllegalArgumentException(option + ": a number of 0 or more, not " + value);
        }
        return v;
    }

    static void pause(long ms) {
        Progress.pause(ms);
    }

    static void progress(String format, Object... args) {
        Progress.progress(format, args);
    }

    private static void deleteTree(Path dir) {
        Progress.deleteTree(dir);
    }
}
