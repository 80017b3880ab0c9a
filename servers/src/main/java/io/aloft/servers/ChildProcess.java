package io.aloft.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One child JVM or binary with its output in a log file: start, wait until it serves the Kafka
 * API, stop by its own {@link Process} handle (never by name, so other engineers' brokers on the
 * host are left alone).
 *
 * <p>Every live child is also registered with one JVM shutdown hook that kills it, so a benchmark
 * that crashes, is interrupted with Ctrl-C or hangs and is killed with SIGTERM leaves nothing
 * behind. (SIGKILL of this JVM cannot be caught; the children of such a run must be stopped by pid.)
 *
 * <p>Thread-safe: the registry is concurrent, and {@link #stop()} is idempotent.
 */
final class ChildProcess {
    private static final Logger log = LoggerFactory.getLogger(ChildProcess.class);

    static final Duration STOP_GRACE = Duration.ofSeconds(30);
    static final int TAIL_LINES = 40;

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcess::killAll, "omb-child-reaper"));
    }

    private final String name;
    private final Process process;
    private final Path logFile;

    private ChildProcess(String name, Process process, Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
    }

    /** Starts {@code command} with stdout and stderr appended to {@code logFile}. */
    static ChildProcess start(String name, List<String> command, Path logFile, Map<String, String> env)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(env);
        Process process = builder.start();
        LIVE.add(process);
        log.info("Started {} (pid {}), log {}", name, process.pid(), logFile);
        return new ChildProcess(name, process, logFile);
    }

    /**
     * Polls until an Admin {@code describeCluster} against {@code bootstrap}, with {@code client}'s
     * settings (security), succeeds. Polling is the
     * only way to learn when another process is ready; each attempt is bounded by a short timeout.
     *
     * @throws IOException if the child exits or {@code timeout} passes first; the message carries
     *     the tail of the child's log
     */
    void awaitKafkaApi(String bootstrap, Map<String, String> client, Duration timeout)
            throws IOException, InterruptedException {
        Properties props = new Properties();
        props.putAll(client);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(props)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException(name + " exited with status " + process.exitValue()
                            + " during start-up; last lines of " + logFile + ":\n" + tail());
                }
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // Not listening or not registered yet: ask again.
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(name + " did not answer describeCluster at " + bootstrap + " within "
                            + timeout.toSeconds() + " s; last lines of " + logFile + ":\n" + tail());
                }
                Thread.sleep(100);
            }
        }
    }

    /** True if the log says a port was taken between our probe and the child's bind. */
    boolean lostPortRace() {
        return tail().contains("Address already in use");
    }

    /** SIGTERM, up to {@link #STOP_GRACE} to exit, then SIGKILL. Idempotent. */
    void stop() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
                    log.warn("{} (pid {}) ignored SIGTERM for {} s; killing it", name, process.pid(),
                            STOP_GRACE.toSeconds());
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
        }
    }

    /**
     * SIGTERM without waiting: the returned future completes when the process has exited (and it
     * leaves the shutdown hook's registry then), so a caller can time a graceful shutdown.
     */
    CompletableFuture<Process> terminate() {
        CompletableFuture<Process> exit = process.onExit();
        exit.thenRun(() -> LIVE.remove(process));
        process.destroy();
        return exit;
    }

    /** SIGKILL, waiting up to 10 s for the exit. Idempotent. */
    void kill() {
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    /** The last {@link #TAIL_LINES} lines of the child's log. */
    String tail() {
        return tail(logFile);
    }

    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static void killAll() {
        for (Process p : new ArrayList<>(LIVE)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    // ---- helpers shared by the servers ---------------------------------------------------------

    /** The {@code java} binary of this JVM, so children run on the same JDK. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A port free on 127.0.0.1 right now, for a child to bind (see {@link FreePorts}). */
    static int freePort() throws IOException {
        return FreePorts.next();
    }

    static void writeProperties(Path file, Map<String, String> props, String comment) throws IOException {
        StringBuilder out = new StringBuilder("# ").append(comment).append('\n');
        props.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        Files.writeString(file, out, StandardCharsets.UTF_8);
    }

    /**
     * A log4j2 configuration writing WARN and above to stdout, which {@link #start} sends to the log
     * file: one writer per file, and little CPU spent on logging during a measurement.
     */
    static void writeLog4j2(Path configFile) throws IOException {
        writeLog4j2(configFile, "");
    }

    /** As {@link #writeLog4j2(Path)}, with {@code loggers} ({@code <Logger .../>} elements) added. */
    static void writeLog4j2(Path configFile, String loggers) throws IOException {
        Files.writeString(configFile, """
                <?xml version="1.0" encoding="UTF-8"?>
                <Configuration status="WARN">
                  <Appenders>
                    <Console name="Out" target="SYSTEM_OUT">
                      <PatternLayout pattern="%d{ISO8601} %-5level [%t] %c{1} - %msg%n"/>
                    </Console>
                  </Appenders>
                  <Loggers>
                    <Logger name="org.apache.ratis.util.LifeCycle" level="OFF"/>
                    <!--LOGGERS-->
                    <Root level="WARN">
                      <AppenderRef ref="Out"/>
                    </Root>
                  </Loggers>
                </Configuration>
                """.replace("<!--LOGGERS-->", loggers), StandardCharsets.UTF_8);
    }

    /** Deletes {@code dir} and everything under it; best effort, logged if something stays. */
    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete all of {}: {}", dir, e.toString());
        }
        if (Files.exists(dir)) {
            log.warn("Could not delete all of {}", dir);
        }
    }
}
