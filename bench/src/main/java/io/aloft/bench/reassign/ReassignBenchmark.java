package io.aloft.bench.reassign;

import io.aloft.bench.cluster.BackgroundProducer;
import io.aloft.bench.cluster.Progress;
import io.aloft.bench.cluster.ClusterClients;
import io.aloft.bench.cluster.Machine;
import io.aloft.bench.cluster.Scratch;
import io.aloft.bench.cluster.ServedProbe;
import io.aloft.servers.AloftCluster;
import io.aloft.servers.ApacheKafkaCluster;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.NodeCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * Partition reassignment benchmark (issue 13): the same moves on a 3-broker Apache Kafka 4.3.1
 * cluster and a 3-broker Aloft cluster, one after the other, every broker a child process on
 * 127.0.0.1, replication factor 1.
 * <ol>
 *   <li>One topic per size (one partition each: ~1 MiB, ~1 GiB and ~10 GiB; quick: 1 MiB and
 *       128 MiB) is loaded, and a topic of 6 partitions takes background traffic.</li>
 *   <li>A {@link BackgroundProducer} (idempotent, acks=all, {@value #BACKGROUND_RATE} records/s of
 *       1 KiB over the 6 partitions and the sized ones) runs a baseline window, then through the
 *       moves.</li>
 *   <li>Each sized partition is moved round-robin between the brokers several times ({@link Moves});
 *       each move is timed from the AlterPartitionReassignments call until the new broker
 *       acknowledged a produce to it ({@link ServedProbe}).</li>
 *   <li>With the producer stopped, a broker holding 1,000 partitions is taken out of service
 *       ({@link Drain}).</li>
 * </ol>
 * Each system's data is deleted before the next starts; the report compares both.
 *
 * <p>Usage: {@code ReassignBenchmark --dir DIR --json-dir DIR [--quick] [--systems kafka,aloft]
 * [--objects s3|file]}. Confined to its main thread (plus the producers' own).
 */
public final class ReassignBenchmark {
    static final int BROKERS = 3;
    static final String HEAP = "1g";
    static final String TRAFFIC_TOPIC = "traffic";
    static final int TRAFFIC_PARTITIONS = 6;
    static final int BACKGROUND_RATE = 500;
    /** The cluster being measured, for the shutdown hook. */
    private static volatile NodeCluster current;
    private static final long MIB = 1L << 20;

    /** One partition size and how many times it is moved. */
    record Size(String label, long bytes, int moves) {
        String topic() {
            return "moved-" + label.replace(" ", "").toLowerCase(Locale.ROOT);
        }

        /** Generous: 60 s plus the bytes at 20 MB/s (Kafka copies them). */
        long moveTimeoutMs() {
            return 60_000 + bytes / 20_000;
        }
    }

    final boolean quick;
    final List<Size> sizes;
    final long baselineMs;
    final boolean onS3;
    /** Where the nodes' logs are kept. */
    Path logDir;
    /** The systems run, for the report's command line. */
    List<String> systems = List.of("kafka", "aloft");

    ReassignBenchmark(boolean quick, boolean onS3) {
        this.quick = quick;
        this.onS3 = onS3;
        this.sizes = quick ? List.of(new Size("1 MiB", MIB, 10), new Size("128 MiB", 128 * MIB, 5))
                : List.of(new Size("1 MiB", MIB, 10), new Size("1 GiB", 1024 * MIB, 5),
                        new Size("10 GiB", 10240 * MIB, 3));
        this.baselineMs = quick ? 5_000 : 10_000;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        boolean onS3 = true;
        List<String> systems = List.of("kafka", "aloft");
        Path dir = Path.of("bench/target");
        Path jsonDir = Path.of("bench/target");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--dir" -> dir = Path.of(args[++i]);
                case "--json-dir" -> jsonDir = Path.of(args[++i]);
                case "--systems" -> systems = List.of(args[++i].split(","));
                case "--objects" -> onS3 = switch (args[++i]) {
                    case "s3" -> true;
                    case "file" -> false;
                    default -> throw new IllegalArgumentException("--objects: s3 or file, not " + args[i]);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir.toAbsolutePath(), "reassign-bench-");
        ReassignBenchmark bench = new ReassignBenchmark(quick, onS3);
        bench.logDir = jsonDir.toAbsolutePath().resolve("reassign-bench-" + stamp + "-logs");
        bench.systems = systems;
        ReassignReport report = new ReassignReport(bench, stamp, System.getenv().getOrDefault("ALOFT_GIT_REV",
                "unknown"), work);
        // On SIGTERM or Ctrl-C: the servers' own hook kills the child processes; this one also stops the
        // cluster in use and deletes the scratch data, which would otherwise stay behind.
        Thread cleanup = new Thread(() -> {
            NodeCluster running = current;
            if (running != null) {
                running.close();
            }
            deleteTree(work);
        }, "reassign-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        int status = 0;
        try {
            if (systems.contains("kafka")) {
                report.kafka = bench.run("Apache Kafka 4.3.1", new ApacheKafkaCluster(ApacheKafkaServer.findLibsDir(),
                        BROKERS, HEAP, work, Map.of(), Duration.ofSeconds(180)), true);
            }
            if (systems.contains("aloft")) {
                report.aloft = bench.run("Aloft", new AloftCluster(BROKERS, HEAP, onS3, work, Map.of(),
                        Duration.ofSeconds(180)), false);
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
        Path results = Progress.writeReport(jsonDir, "reassign-bench", stamp, report.markdown(), report.json());
        progress("done in %.0f s; results in %s", report.elapsedSeconds, results);
        System.exit(status); // client threads must not keep the JVM up
    }

    /** What one system did; a phase that failed leaves its fields empty and names the error. */
    static final class Result {
        String name;
        String description;
        final Map<Size, Double> loadSeconds = new LinkedHashMap<>();
        final Map<Size, Moves.Result> moves = new LinkedHashMap<>();
        BackgroundProducer.Phase baseline;
        final Map<Size, BackgroundProducer.Phase> during = new LinkedHashMap<>();
        Drain.Result drain;
        String error;
    }

    Result run(String name, NodeCluster cluster, boolean kafka) {
        Result r = new Result();
        r.name = name;
        r.description = cluster.description();
        progress("%s: starting %d brokers", name, BROKERS);
        current = cluster;
        try {
            cluster.start();
            try (Admin admin = ClusterClients.admin(cluster.bootstrap());
                    ServedProbe probe = new ServedProbe(admin, cluster.bootstrap(), true)) {
                List<NewTopic> topics = new ArrayList<>();
                topics.add(new NewTopic(TRAFFIC_TOPIC, TRAFFIC_PARTITIONS, (short) 1));
                for (Size s : sizes) {
                    topics.add(new NewTopic(s.topic(), 1, (short) 1));
                }
                admin.createTopics(topics).all().get(120, TimeUnit.SECONDS);
                for (Size s : sizes) {
                    ClusterClients.awaitLeaders(admin, s.topic(), 1, 60_000);
                    double seconds = Loader.load(cluster.bootstrap(), s.topic(), s.bytes());
                    r.loadSeconds.put(s, seconds);
                    progress("%s: loaded %s into %s in %.1f s", name, s.label(), s.topic(), seconds);
                }
                List<TopicPartition> background = new ArrayList<>();
                for (int p = 0; p < TRAFFIC_PARTITIONS; p++) {
                    background.add(new TopicPartition(TRAFFIC_TOPIC, p));
                }
                sizes.forEach(s -> background.add(new TopicPartition(s.topic(), 0)));
                try (BackgroundProducer producer = new BackgroundProducer(cluster.bootstrap(), background,
                        BACKGROUND_RATE).start()) {
                    pause(2_000);
                    producer.phase(); // the producer's start-up is not part of the baseline
                    pause(baselineMs);
                    r.baseline = producer.phase();
                    progress("%s: background producer baseline p99 %.1f ms", name,
                            r.baseline.latencyMicros().getValueAtPercentile(99) / 1000.0);
                    for (Size s : sizes) {
                        r.moves.put(s, Moves.run(admin, cluster, s.topic(), s.moves(), s.moveTimeoutMs(),
                                name + " " + s.label()));
                        r.during.put(s, producer.phase());
                    }
                }
                r.drain = Drain.run(cluster, admin, probe, kafka, 180_000);
            }
        } catch (Exception e) {
            r.error = e.toString();
            progress("%s: failed: %s", name, e);
            e.printStackTrace();
        } finally {
            cluster.saveLogs(logDir);
            cluster.close();
            current = null;
        }
        progress("%s: stopped, data deleted; node logs in %s", name, logDir);
        return r;
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
