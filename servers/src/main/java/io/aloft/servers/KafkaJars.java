package io.aloft.servers;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Apache Kafka installation as {@code kafka-dist} resolves it (a directory of jars): its version,
 * the JVM flags of Kafka's own start script, and the two commands every KRaft node needs, {@code
 * StorageTool format} and {@code kafka.Kafka}. Shared by the single node ({@link ApacheKafkaServer})
 * and the cluster ({@link ApacheKafkaCluster}), so both run Kafka the same way.
 *
 * <p>Immutable.
 */
final class KafkaJars {
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern KAFKA_JAR = Pattern.compile("kafka_[0-9.]+-([0-9][^-]*)\\.jar");

    private final Path libsDir;
    private final String version;

    KafkaJars(Path libsDir) throws IOException {
        this.libsDir = libsDir.toAbsolutePath().normalize();
        this.version = versionOf(this.libsDir);
    }

    String version() {
        return version;
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

    /** As Kafka's bin/kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS). */
    static List<String> gcFlags() {
        return List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
                "-XX:+ExplicitGCInvokesConcurrent");
    }

    String classPath() {
        return libsDir.resolve("*").toString();
    }

    /** {@code kafka.Kafka props} with the given JVM flags (heap and GC). */
    List<String> serverCommand(List<String> jvmFlags, Path log4j, Path props) {
        List<String> command = new ArrayList<>();
        command.add(ChildProcess.javaBinary());
        command.addAll(jvmFlags);
        command.addAll(List.of("-Dlog4j2.configurationFile=" + log4j, "-cp", classPath(), "kafka.Kafka",
                props.toString()));
        return command;
    }

    /**
     * {@code kafka.tools.StorageTool format}: KRaft refuses to start on an unformatted log dir; every
     * node of one cluster is formatted with the same {@code clusterId}.
     */
    void format(Path dir, Path props, Path log4j, String clusterId) throws IOException, InterruptedException {
        Path logFile = dir.resolve("format.log");
        List<String> command = List.of(ChildProcess.javaBinary(), "-Xmx256m", "-Dlog4j2.configurationFile=" + log4j,
                "-cp", classPath(), "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props.toString());
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
}
