package io.aloft.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Apache Kafka and Aloft share as benchmark children: a fresh temp directory per instance, the
 * same JVM flags, a log file, readiness by Admin {@code describeCluster}, a retry when another
 * process takes a probed port first, a {@link #restart()} on the same data, and a stop that always
 * deletes the directory.
 *
 * <p>Not thread-safe (see {@link BenchServer}); {@link #stop()} is idempotent.
 */
public abstract class ChildBroker implements BenchServer {
    private static final Logger log = LoggerFactory.getLogger(ChildBroker.class);
    private static final Pattern HEAP = Pattern.compile("[1-9][0-9]*[kKmMgG]?");
    private static final int PORT_ATTEMPTS = 3;

    /** What a subclass launches: the command, and the address clients use. */
    record Launch(List<String> command, String bootstrap) {
    }

    protected final String heap;
    protected final Path scratchParent;
    protected final Map<String, String> extraProperties;
    /** How clients connect: PLAINTEXT, or a {@link ClientSecurity#LISTENER} listener of another protocol. */
    protected final ClientSecurity security;
    private final Duration startTimeout;

    private Path dir;
    private ChildProcess child;
    private String bootstrap;
    /** What the running child was started with, so that {@link #restart()} can run it again. */
    private Launch launch;
    private Path logFile;

    /**
     * @param heap {@code -Xms} and {@code -Xmx} of the child, e.g. {@code 3g}
     * @param scratchParent where the temp directory is made (the disk the broker writes to)
     * @param extraProperties server properties added last, overriding the generated ones
     * @param security how clients connect (and so the readiness probe)
     */
    ChildBroker(String heap, Path scratchParent, Map<String, String> extraProperties, ClientSecurity security,
            Duration startTimeout) {
        if (!HEAP.matcher(heap).matches()) {
            throw new IllegalArgumentException("heap: '" + heap + "' is not a JVM size such as 3g or 1536m");
        }
        this.heap = heap;
        this.scratchParent = scratchParent;
        this.extraProperties = Map.copyOf(extraProperties);
        this.security = security;
        this.startTimeout = startTimeout;
    }

    /** Short lowercase name for directories and logs: "kafka", "aloft". */
    abstract String shortName();

    /** Writes config into {@code dir} (ports already free) and says what to run. */
    abstract Launch prepare(Path dir) throws IOException, InterruptedException;

    /**
     * Called after the child stopped, before the directory is deleted (e.g. to stop a helper), also
     * between start attempts. Must be idempotent.
     */
    void afterStop() {
    }

    /**
     * The same heap for both systems; the garbage collector each ships with in its own start
     * script ({@link #gcFlags}), since that is how each is run.
     */
    final List<String> jvmFlags() {
        List<String> flags = new java.util.ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
        flags.addAll(gcFlags());
        return flags;
    }

    /** The garbage collector flags of this system's own start script. */
    abstract List<String> gcFlags();

    /** Server properties with the extra ones applied on top. */
    final Map<String, String> withExtras(Map<String, String> generated) {
        Map<String, String> all = new LinkedHashMap<>(generated);
        all.putAll(extraProperties);
        return all;
    }

    @Override
    public final void start() throws IOException, InterruptedException {
        if (child != null) {
            throw new IllegalStateException(description() + " was already started; use a fresh instance");
        }
        Files.createDirectories(scratchParent);
        dir = Files.createTempDirectory(scratchParent, "omb-" + shortName() + "-");
        try {
            for (int attempt = 1; ; attempt++) {
                // A fresh directory per attempt: a half-started child may have formatted the last one.
                Path attemptDir = Files.createDirectories(dir.resolve("attempt-" + attempt));
                launch = prepare(attemptDir);
                logFile = attemptDir.resolve(shortName() + ".log");
                child = ChildProcess.start(shortName(), launch.command(), logFile, Map.of());
                try {
                    child.awaitKafkaApi(launch.bootstrap(), security.clientProperties(), startTimeout);
                    bootstrap = launch.bootstrap();
                    log.info("{} ready at {}", description(), bootstrap);
                    return;
                } catch (IOException e) {
                    boolean raced = child.lostPortRace();
                    child.stop();
                    afterStop();
                    if (!raced || attempt == PORT_ATTEMPTS) {
                        throw e;
                    }
                    log.info("{} lost a port to another process; retrying with new ports", shortName());
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            stop();
            throw e;
        }
    }

    /**
     * Stops the broker as {@link #stop()} does (SIGTERM, so it shuts down cleanly) but keeps its
     * directory, then starts the same command again: same data, configuration, ports and log file
     * (appended to), so clients reconnect to the same {@link #bootstrap()}. Whatever else the run
     * started (Aloft's versitygw) keeps running, as an object store outlives a broker. Returns once
     * Admin {@code describeCluster} succeeds again.
     *
     * @throws IllegalStateException if the broker is not running
     * @throws IOException if the new process exits or does not answer in time (for example because
     *     another process took its port meanwhile); the message ends with the tail of its log. The
     *     broker is then not running, and {@link #stop()} still deletes the directory.
     */
    public final void restart() throws IOException, InterruptedException {
        restart(false);
    }

    /**
     * {@link #restart()} after a SIGKILL instead of a SIGTERM: the broker gets no chance to flush,
     * upload or hand anything over, as in a crash; what it acknowledged must survive.
     */
    public final void killAndRestart() throws IOException, InterruptedException {
        restart(true);
    }

    private void restart(boolean kill) throws IOException, InterruptedException {
        if (bootstrap == null) {
            throw new IllegalStateException(shortName() + " is not running");
        }
        String address = bootstrap;
        bootstrap = null;
        if (kill) {
            child.kill();
        } else {
            child.stop();
        }
        log.info("{} {} for a restart on the same data", description(), kill ? "killed (SIGKILL)" : "stopped");
        child = ChildProcess.start(shortName(), launch.command(), logFile, Map.of());
        try {
            child.awaitKafkaApi(address, security.clientProperties(), startTimeout);
        } catch (IOException | InterruptedException | RuntimeException e) {
            child.stop();
            throw e;
        }
        bootstrap = address;
        log.info("{} restarted at {}", description(), bootstrap);
    }

    @Override
    public final String bootstrap() {
        if (bootstrap == null) {
            throw new IllegalStateException(shortName() + " is not running");
        }
        return bootstrap;
    }

    @Override
    public final Map<String, String> clientProperties() {
        return security.clientProperties();
    }

    @Override
    public final void stop() {
        try {
            if (child != null) {
                child.stop();
            }
            afterStop();
        } finally {
            bootstrap = null;
            ChildProcess.deleteRecursively(dir);
        }
    }

    /** The child process, or null before start (tests check it is gone after {@link #stop()}). */
    public final Process process() {
        return child == null ? null : child.process();
    }

    /** The child's temp directory, or null before start (tests check it is deleted after {@link #stop()}). */
    public final Path directory() {
        return dir;
    }
}
