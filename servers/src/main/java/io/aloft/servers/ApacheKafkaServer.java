package io.aloft.servers;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;

/**
 * Apache Kafka as a single KRaft node (broker and controller in one process) on 127.0.0.1, run from
 * the jars {@code kafka-dist} resolves from Maven Central. Data goes to a fresh temp directory that
 * {@link #stop()} deletes.
 *
 * <p>Durability: by default Kafka's own default, which acknowledges a write once it is in the page
 * cache and leaves flushing to the OS. With {@code fsyncEveryMessage} the broker sets
 * {@code log.flush.interval.messages=1}, so it flushes the log after each appended batch before the
 * produce is acknowledged: the setting that matches Aloft, which acknowledges only after the WAL
 * write is durable.
 *
 * <p>Not thread-safe (see {@link BenchServer}).
 */
public final class ApacheKafkaServer extends ChildBroker {
    /** Where the build puts the jars, relative to the repository root. */
    public static final String DEFAULT_LIBS_DIR = "kafka-dist/target/kafka-libs";
    /** System property that overrides {@link #DEFAULT_LIBS_DIR} (surefire sets it). */
    public static final String LIBS_DIR_PROPERTY = "aloft.kafka.libs.dir";

    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern KAFKA_JAR = Pattern.compile("kafka_[0-9.]+-([0-9][^-]*)\\.jar");

    private final Path libsDir;
    private final boolean fsyncEveryMessage;
    private final String version;

    /**
     * @param libsDir the directory of Kafka's jars (see {@link #findLibsDir()})
     * @param fsyncEveryMessage flush the log before acknowledging each produce
     */
    public ApacheKafkaServer(Path libsDir, String heap, boolean fsyncEveryMessage, Path scratchParent,
            Map<String, String> extraProperties, Duration startTimeout) throws IOException {
        super(heap, scratchParent, extraProperties, startTimeout);
        this.libsDir = libsDir.toAbsolutePath().normalize();
        this.fsyncEveryMessage = fsyncEveryMessage;
        this.version = versionOf(this.libsDir);
    }

    /**
     * The Kafka jars: {@code -Daloft.kafka.libs.dir} if set, else {@value #DEFAULT_LIBS_DIR} in the
     * working directory or the nearest parent that has it.
     *
     * @throws IOException naming the build command when the directory does not exist
     */
    public static Path findLibsDir() throws IOException {
        String configured = System.getProperty(LIBS_DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(DEFAULT_LIBS_DIR);
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IOException(DEFAULT_LIBS_DIR + " not found from " + Path.of("").toAbsolutePath()
                + "; build it with `mvn -B -q -pl kafka-dist package` or set -D" + LIBS_DIR_PROPERTY);
    }

    /** The Kafka version from the {@code kafka_2.13-<version>.jar} file name. */
    static String versionOf(Path libsDir) throws IOException {
        if (!Files.isDirectory(libsDir)) {
            throw new IOException("Kafka libs directory " + libsDir + " does not exist; build it with "
                    + "`mvn -B -q -pl kafka-dist package`");
        }
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(libsDir, "kafka_*.jar")) {
            for (Path jar : jars) {
                Matcher m = KAFKA_JAR.matcher(jar.getFileName().toString());
                if (m.matches()) {
                    return m.group(1);
                }
            }
        }
        throw new IOException("no kafka_<scala>-<version>.jar in " + libsDir);
    }

    @Override
    String shortName() {
        return fsyncEveryMessage ? "kafka-fsync" : "kafka";
    }

    @Override
    public String description() {
        return "Apache Kafka " + version + " (KRaft, 1 node, "
                + (fsyncEveryMessage ? "fsync per write: log.flush.interval.messages=1" : "default: no fsync per write")
                + ", -Xmx" + heap + " " + String.join(" ", gcFlags()) + ")";
    }

    /** As Kafka's bin/kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS). */
    @Override
    List<String> gcFlags() {
        return List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
                "-XX:+ExplicitGCInvokesConcurrent");
    }

    @Override
    Launch prepare(Path dir) throws IOException, InterruptedException {
        int brokerPort = ChildProcess.freePort();
        int controllerPort = ChildProcess.freePort();
        Path logDirs = Files.createDirectories(dir.resolve("kafka-logs"));
        Path props = dir.resolve("server.properties");
        ChildProcess.writeProperties(props, withExtras(serverProperties(brokerPort, controllerPort, logDirs)),
                "Generated by the Aloft benchmark: one KRaft node for a single run");
        Path log4j = dir.resolve("log4j2.xml");
        ChildProcess.writeLog4j2(log4j);
        format(dir, props, log4j);

        List<String> command = new ArrayList<>();
        command.add(ChildProcess.javaBinary());
        command.addAll(jvmFlags());
        command.addAll(List.of("-Dlog4j2.configurationFile=" + log4j, "-cp", classPath(), "kafka.Kafka",
                props.toString()));
        return new Launch(command, "127.0.0.1:" + brokerPort);
    }

    Map<String, String> serverProperties(int brokerPort, int controllerPort, Path logDirs) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDirs.toString());
        // Workloads create their topics with explicit partition counts; this only affects auto-creation.
        p.put("num.partitions", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        if (fsyncEveryMessage) {
            p.put("log.flush.interval.messages", "1");
        }
        return p;
    }

    /** {@code kafka.tools.StorageTool format}: KRaft refuses to start on an unformatted log dir. */
    private void format(Path dir, Path props, Path log4j) throws IOException, InterruptedException {
        Path logFile = dir.resolve("format.log");
        List<String> command = List.of(ChildProcess.javaBinary(), "-Xmx256m", "-Dlog4j2.configurationFile=" + log4j,
                "-cp", classPath(), "kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                "-c", props.toString());
        ChildProcess formatter = ChildProcess.start("kafka-storage-format", command, logFile, Map.of());
        try {
            if (!formatter.process().waitFor(FORMAT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException("kafka.tools.StorageTool format did not finish in " + FORMAT_TIMEOUT.toSeconds()
                        + " s; last lines of " + logFile + ":\n" + formatter.tail());
            }
            if (formatter.process().exitValue() != 0) {
                throw new IOException("kafka.tools.StorageTool format failed with status "
                        + formatter.process().exitValue() + "; last lines of " + logFile + ":\n" + formatter.tail());
            }
        } finally {
            formatter.stop();
        }
    }

    private String classPath() {
        return libsDir.resolve("*").toString();
    }
}
