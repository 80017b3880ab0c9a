package io.aloft.autoscaler.backend;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local} backend: broker processes on this machine, in the layout of
 * {@code scripts/cluster.sh} (one {@code node-ID} directory per node under the cluster directory,
 * holding its {@code server.properties} and the {@code pid} of its process). It reads that layout to
 * list the brokers, and runs {@code cluster.sh add} and {@code cluster.sh remove} to change them: the
 * script is the one place that knows how a node is configured, started and drained, and an operator
 * can run the same commands by hand.
 *
 * <p>Which nodes count: a broker is a node whose {@code process.roles} include {@code broker}
 * (absent, the script's default {@code broker,controller}) and whose recorded process is alive. Nodes
 * whose roles include {@code controller} are protected, running or not: a broker embedding a voter
 * cannot go without shrinking the quorum. {@code cluster.sh remove} refuses them too (exit 2).
 *
 * <p>Each command runs as a child process, bounded by {@link Config#commandTimeout()}; its stderr
 * (the script's progress) is logged at INFO, and a failure's {@link IOException} carries its last
 * lines. Confined to the autoscaler's control thread (see {@link ScalingBackend}); not thread-safe.
 */
public final class LocalBackend implements ScalingBackend {
    private static final Logger log = LoggerFactory.getLogger(LocalBackend.class);
    private static final Pattern NODE_DIR = Pattern.compile("node-(\\d+)");
    /** The last stdout line of {@code cluster.sh add}: "ID ADDRESS". */
    private static final Pattern ADDED = Pattern.compile("(\\d+) (\\S+)");
    private static final int STDERR_TAIL_LINES = 15;
    /** {@code cluster.sh}'s exit status for bad arguments and for a node {@code remove} refuses. */
    private static final int EXIT_REFUSED = 2;

    /**
     * What the local backend needs.
     *
     * @param clusterDir the cluster directory ({@code cluster.sh --dir})
     * @param script {@code scripts/cluster.sh}
     * @param environment variables set for the script on top of this process's own (for instance
     *     {@code ALOFT_CLASSPATH}, the class path new brokers run on, and {@code ALOFT_HEAP_OPTS});
     *     an {@code ALOFT_CLASSPATH} in this process's environment passes through unless replaced here
     * @param commandTimeout how long one {@code add} or {@code remove} may take; the script's own
     *     waits (120 s to serve, 60 s to stop, by default) must fit in it
     */
    public record Config(Path clusterDir, Path script, Map<String, String> environment, Duration commandTimeout) {
        /** Default {@link #commandTimeout}: the script's start wait (120 s) and stop wait (60 s), with margin. */
        public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(200);

        public Config {
            Objects.requireNonNull(clusterDir, "clusterDir");
            Objects.requireNonNull(script, "script");
            environment = Collections.unmodifiableMap(new TreeMap<>(environment));
            if (commandTimeout.isNegative() || commandTimeout.isZero()) {
                throw new IllegalArgumentException("commandTimeout must be positive, was " + commandTimeout);
            }
        }

        /** The cluster in {@code clusterDir}, changed with {@code script}, this process's environment, default timeout. */
        public static Config of(Path clusterDir, Path script) {
            return new Config(clusterDir, script, Map.of(), DEFAULT_COMMAND_TIMEOUT);
        }
    }

    private final Config config;

    public LocalBackend(Config config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public List<Integer> brokers() throws IOException {
        List<Integer> ids = new ArrayList<>();
        for (Node node : nodes()) {
            if (node.broker() && node.running()) {
                ids.add(node.id());
            }
        }
        return ids;
    }

    @Override
    public Set<Integer> protectedBrokers() throws IOException {
        Set<Integer> ids = new TreeSet<>();
        for (Node node : nodes()) {
            if (node.controller()) {
                ids.add(node.id());
            }
        }
        return Collections.unmodifiableSet(ids);
    }

    @Override
    public int removalCandidate() throws IOException {
        int candidate = -1;
        for (Node node : nodes()) { // ascending: the last that qualifies is the highest
            if (node.broker() && node.running() && !node.controller()) {
                candidate = node.id();
            }
        }
        return candidate;
    }

    @Override
    public int addBroker() throws IOException, InterruptedException {
        Result result = run("add", "--no-build");
        if (result.status != 0) {
            throw new IOException("cluster.sh add failed (exit " + result.status + ") in " + config.clusterDir()
                    + ": " + result.stderrTail);
        }
        Matcher m = ADDED.matcher(result.lastStdoutLine());
        if (!m.matches()) {
            throw new IOException("cluster.sh add printed no \"ID ADDRESS\" line; stdout ended with \""
                    + result.lastStdoutLine() + "\"; stderr: " + result.stderrTail);
        }
        int id = Integer.parseInt(m.group(1));
        log.info("Local backend: broker {} started at {} in {}", id, m.group(2), config.clusterDir());
        return id;
    }

    /**
     * Runs {@code cluster.sh remove id}: SIGTERM (the broker drains, uploads and leaves the cluster's
     * metadata), its exit, its directory moved to {@code removed/}.
     *
     * @throws IllegalStateException when the script refuses the node (a voter or a controller), with
     *     its reason
     * @throws IOException when the script fails otherwise (the node does not exist or run, or did not
     *     stop gracefully, in which case its directory stays)
     */
    @Override
    public void removeBroker(int id) throws IOException, InterruptedException {
        Result result = run("remove", Integer.toString(id));
        if (result.status == EXIT_REFUSED) {
            throw new IllegalStateException("cluster.sh refused to remove node " + id + ": " + result.stderrTail);
        }
        if (result.status != 0) {
            throw new IOException("cluster.sh remove " + id + " failed (exit " + result.status + ") in "
                    + config.clusterDir() + ": " + result.stderrTail);
        }
        log.info("Local backend: broker {} drained and removed; its directory is now {}", id,
                result.lastStdoutLine());
    }

    /** Nothing to release: every command's process has ended when its call returns. */
    @Override
    public void close() {
    }

    /** One node directory of the cluster. */
    private record Node(int id, String roles, long pid) {
        boolean broker() {
            return hasRole("broker");
        }

        boolean controller() {
            return hasRole("controller");
        }

        private boolean hasRole(String role) {
            for (String r : roles.split(",")) {
                if (r.trim().equals(role)) {
                    return true;
                }
            }
            return false;
        }

        boolean running() {
            return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    /** The cluster directory's nodes, by ascending id; an absent directory has none. */
    private List<Node> nodes() throws IOException {
        if (!Files.isDirectory(config.clusterDir())) {
            return List.of();
        }
        TreeMap<Integer, Node> byId = new TreeMap<>();
        try (Stream<Path> children = Files.list(config.clusterDir())) {
            for (Path dir : (Iterable<Path>) children::iterator) {
                Matcher m = NODE_DIR.matcher(dir.getFileName().toString());
                Path props = dir.resolve("server.properties");
                if (!m.matches() || !Files.isRegularFile(props)) {
                    continue;
                }
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(props)) {
                    p.load(in);
                }
                int id = Integer.parseInt(m.group(1));
                // cluster.sh's default when the file names no roles: a broker with an embedded voter.
                String roles = p.getProperty("process.roles", "broker,controller");
                byId.put(id, new Node(id, roles, readPid(dir.resolve("pid"))));
            }
        }
        return new ArrayList<>(byId.values());
    }

    /** The pid the script recorded, or -1 when there is none (the node was stopped) or it is unreadable. */
    private static long readPid(Path file) {
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            return -1; // no pid file: the script removes it when the node stops
        }
    }

    private record Result(int status, List<String> stdout, String stderrTail) {
        String lastStdoutLine() {
            return stdout.isEmpty() ? "" : stdout.get(stdout.size() - 1).trim();
        }
    }

    /** Runs {@code cluster.sh <args> --dir <clusterDir>}, bounded by the command timeout. */
    private Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", config.script().toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--dir", config.clusterDir().toString()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(config.environment());
        Path out = Files.createTempFile("cluster-sh-", ".out");
        Path err = Files.createTempFile("cluster-sh-", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
            log.info("Local backend: running cluster.sh {} on {}", String.join(" ", args), config.clusterDir());
            Process p = pb.start();
            p.getOutputStream().close();
            boolean done;
            try {
                done = p.waitFor(config.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                p.destroy();
                throw e;
            }
            if (!done) {
                // SIGTERM to the script only: a node it launched runs in its own session and stays, as
                // after any interrupted cluster.sh; `status` shows it.
                p.destroy();
                p.waitFor(5, TimeUnit.SECONDS);
                throw new IOException("cluster.sh " + String.join(" ", args) + " did not finish in "
                        + config.commandTimeout().toSeconds() + " s; stderr: " + tail(err));
            }
            List<String> stderr = Files.readAllLines(err, StandardCharsets.UTF_8);
            for (String line : stderr) {
                log.info("cluster.sh {}: {}", args[0], line);
            }
            return new Result(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8), tail(stderr));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String tail(Path file) throws IOException {
        return tail(Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    private static String tail(List<String> lines) {
        List<String> last = lines.subList(Math.max(0, lines.size() - STDERR_TAIL_LINES), lines.size());
        return last.isEmpty() ? "(no stderr)" : String.join("\n", last);
    }
}
