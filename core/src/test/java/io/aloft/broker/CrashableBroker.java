package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A broker in its own JVM ({@link BrokerChild} on a properties file) for the crash tests: started
 * again and again on the same file, SIGKILLed, its output appended to one log file kept as
 * evidence, with a line marking each start and kill. Confined to the test thread.
 */
final class CrashableBroker implements AutoCloseable {
    private final Path config;
    private final Path logFile;
    private Process process;

    CrashableBroker(Path config, Path logFile) {
        this.config = config;
        this.logFile = logFile;
    }

    /** Starts the broker; it serves once it answers its clients (callers wait for that). */
    void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start (C1 only, one compiler thread): it runs seconds on 2 shared cores.
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                // The broker's own logging (INFO for io.aloft), not the test configuration on the class path.
                "-Dlog4j2.configurationFile=" + childLogConfig(),
                "-Dlog4j2.shutdownHookEnabled=false",
                "-cp", System.getProperty("java.class.path"),
                BrokerChild.class.getName(), config.toString());
        // A file, not a pipe: nothing has to drain it, and what a killed broker wrote is kept.
        // Standard input stays a pipe that this JVM never closes: BrokerChild halts at its EOF.
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Files.writeString(logFile, "=== start " + Instant.now() + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = pb.start();
    }

    /** The running broker's process; null between a kill and the next start. */
    Process process() {
        return process;
    }

    Path logFile() {
        return logFile;
    }

    /** SIGKILLs the broker and checks that it died of it (it had not exited by itself). */
    void kill() throws Exception {
        Process p = process;
        process = null;
        p.destroyForcibly(); // SIGKILL on Unix
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "broker exits after SIGKILL");
        assertEquals(137, p.exitValue(), "broker was killed by SIGKILL (and had not exited by itself)");
        Files.writeString(logFile, "=== SIGKILL " + Instant.now() + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
    }

    /** Whatever happened, the broker does not outlive the test. */
    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static Path childLogConfig() {
        try {
            return Path.of(CrashableBroker.class.getClassLoader().getResource("broker-child-log4j2.xml").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
