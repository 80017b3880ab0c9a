package io.aloft.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several broker (and controller) processes of one cluster on 127.0.0.1, each a child JVM with its
 * own directory under one fresh temp directory: Apache Kafka ({@link ApacheKafkaCluster}) or Aloft
 * ({@link AloftCluster}). {@link #start()} launches every node at once (a voter waits for its
 * peers) and returns when every broker answers Admin {@code describeCluster} with all brokers.
 * Single brokers can be stopped gracefully ({@link #terminate}, for timing a drain) and started
 * again on their data ({@link #relaunch}). {@link #close()} SIGKILLs what still runs (the data is
 * deleted next, so a graceful stop would only cost time) and deletes the directory; the children
 * are also in {@link ChildProcess}'s shutdown hook, so a crashed or interrupted run leaves none.
 *
 * <p>Not thread-safe: one thread drives it; {@link #close()} is idempotent.
 */
public abstract class NodeCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeCluster.class);

    /** One process: its id, whether it serves clients (and on which port), what to run. */
    record Node(int id, boolean broker, int port, List<String> command, Path dir) {
        String address() {
            return "127.0.0.1:" + port;
        }
    }

    protected final String heap;
    protected final int brokers;
    private final Path scratchParent;
    private final Duration startTimeout;
    private final Map<Integer, Node> nodes = new LinkedHashMap<>();
    private final Map<Integer, ChildProcess> running = new LinkedHashMap<>();
    private Path dir;

    NodeCluster(int brokers, String heap, Path scratchParent, Duration startTimeout) {
        if (brokers < 1) {
            throw new IllegalArgumentException("brokers: at least 1, not " + brokers);
        }
        this.brokers = brokers;
        this.heap = heap;
        this.scratchParent = scratchParent;
        this.startTimeout = startTimeout;
    }

    /** Short lowercase name for directories and logs: "kafka", "aloft". */
    abstract String shortName();

    /** One line naming the system and how its nodes run. */
    public abstract String description();

    /** Writes every node's configuration under {@code dir} and says what to run, brokers 1..N among them. */
    abstract List<Node> prepare(Path dir) throws IOException, InterruptedException;

    /** Called after every node is gone, before the directory is deleted (e.g. to stop an object store). */
    void afterStop() {
    }

    /** -Xms and -Xmx {@link #heap}, then the system's own GC flags. */
    final List<String> jvmFlags(List<String> gcFlags) {
        List<String> flags = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
        flags.addAll(gcFlags);
        return flags;
    }

    public final void start() throws IOException, InterruptedException {
        if (dir != null) {
            throw new IllegalStateException(shortName() + " cluster was already started; use a fresh instance");
        }
        Files.createDirectories(scratchParent);
        dir = Files.createTempDirectory(scratchParent.toAbsolutePath(), shortName() + "-cluster-");
        try {
            for (Node n : prepare(dir)) {
                nodes.put(n.id(), n);
            }
            for (Node n : nodes.values()) {
                launch(n);
            }
            awaitBrokers(brokerIds(), startTimeout);
            log.info("{} ready at {}", description(), bootstrap());
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void launch(Node n) throws IOException {
        running.put(n.id(), ChildProcess.start(shortName() + "-" + n.id(), n.command(), n.dir().resolve("node.log"),
                Map.of()));
    }

    /** Polls until every broker answers describeCluster listing {@code ids.size()} brokers or more. */
    private void awaitBrokers(List<Integer> ids, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int id : ids) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, nodes.get(id).address());
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
            p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
            try (Admin admin = Admin.create(p)) {
                while (true) {
                    for (Map.Entry<Integer, ChildProcess> e : running.entrySet()) {
                        if (!e.getValue().isAlive()) {
                            throw new IOException(shortName() + " node " + e.getKey() + " exited during start-up; "
                                    + "last lines of its log:\n" + e.getValue().tail());
                        }
                    }
                    try {
                        if (admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).size() >= brokers) {
                            break;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        // Not serving yet: ask again.
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IOException(shortName() + " broker " + id + " does not list " + brokers
                                + " brokers after " + timeout.toSeconds() + " s; last lines of its log:\n"
                                + running.get(id).tail());
                    }
                    Thread.sleep(100);
                }
            }
        }
    }

    /** Broker ids, 1..N. */
    public final List<Integer> brokerIds() {
        return nodes.values().stream().filter(Node::broker).map(Node::id).toList();
    }

    /** Every broker's address, comma-separated, for clients. */
    public final String bootstrap() {
        return nodes.values().stream().filter(Node::broker).map(Node::address).collect(Collectors.joining(","));
    }

    /** Broker {@code id}'s address. */
    public final String bootstrap(int id) {
        return node(id).address();
    }

    /** Broker {@code id}'s process id, for the report and for stopping it by hand. */
    public final long pid(int id) {
        return process(id).pid();
    }

    /**
     * Sends SIGTERM to node {@code id} (its graceful shutdown: Kafka's controlled shutdown, Aloft's
     * drain) and returns at once; the future completes when the process has exited.
     */
    public final CompletableFuture<Process> terminate(int id) {
        return process(id).terminate();
    }

    /**
     * SIGKILLs node {@code id} (a crash: no shutdown hook, no drain, nothing flushed) and returns
     * once the process has exited (at most 10 s); {@link #relaunch} starts it again.
     */
    public final void kill(int id) {
        process(id).kill();
    }

    /**
     * Starts node {@code id} again, after it exited, on the same data, configuration and ports (its
     * log is appended to); returns once it answers describeCluster with every broker.
     */
    public final void relaunch(int id) throws IOException, InterruptedException {
        ChildProcess old = process(id);
        if (old.isAlive()) {
            throw new IllegalStateException(shortName() + " node " + id + " still runs (pid " + old.pid() + ")");
        }
        launch(node(id));
        awaitBrokers(List.of(id), startTimeout);
    }

    /**
     * Copies every node's log to {@code dest} as {@code <system>-node-<id>.log} (evidence for a
     * run's figures; the data directory goes with {@link #close()}). Best effort: a copy that fails
     * is logged and skipped.
     */
    public final void saveLogs(Path dest) {
        for (Node n : nodes.values()) {
            Path source = n.dir().resolve("node.log");
            try {
                Files.createDirectories(dest);
                Files.copy(source, dest.resolve(shortName() + "-node-" + n.id() + ".log"),
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                log.warn("Could not copy {} to {}: {}", source, dest, e.toString());
            }
        }
    }

    /** Node {@code id}'s log file (appended to across restarts), e.g. to read its evidence for a timing. */
    public final Path logFile(int id) {
        return node(id).dir().resolve("node.log");
    }

    /** The temp directory holding every node's data and log, or null before {@link #start()}. */
    public final Path directory() {
        return dir;
    }

    private Node node(int id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException(shortName() + " has no node " + id);
        }
        return n;
    }

    private ChildProcess process(int id) {
        ChildProcess p = running.get(id);
        if (p == null) {
            throw new IllegalStateException(shortName() + " node " + id + " was never started");
        }
        return p;
    }

    @Override
    public final void close() {
        try {
            running.values().forEach(ChildProcess::kill);
            running.clear();
            afterStop();
        } finally {
            ChildProcess.deleteRecursively(dir);
        }
    }
}
