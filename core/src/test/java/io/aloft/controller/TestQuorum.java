package io.aloft.controller;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.server.ControllerServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * N controller voters in this JVM on free 127.0.0.1 ports, each with its own data dir, for tests.
 * Voters can be stopped (closed, as a crash would from the others' point of view) and restarted
 * on the same port and directory.
 */
public final class TestQuorum implements AutoCloseable {
    private final Path root;
    private final String voters;
    private final ControllerServer[] servers;
    private final java.util.function.UnaryOperator<ControllerConfig.Builder> tuning;
    private final java.util.function.IntFunction<ControllerServer.Options> options;

    public TestQuorum(Path root, int size) throws IOException {
        this(root, size, b -> b);
    }

    public TestQuorum(Path root, int size, java.util.function.UnaryOperator<ControllerConfig.Builder> tuning)
            throws IOException {
        this(root, size, tuning, id -> ControllerServer.Options.DEFAULT);
    }

    /** @param options each voter's options, by id (tests give voters different registries this way) */
    public TestQuorum(Path root, int size, java.util.function.UnaryOperator<ControllerConfig.Builder> tuning,
            java.util.function.IntFunction<ControllerServer.Options> options) throws IOException {
        this.root = root;
        this.tuning = tuning;
        this.options = options;
        // A quorum reopened on the same root keeps its ports: voters' addresses are in their logs.
        Path saved = root.resolve("voters.txt");
        if (java.nio.file.Files.exists(saved)) {
            this.voters = java.nio.file.Files.readString(saved).trim();
        } else {
            List<String> entries = new ArrayList<>();
            for (int id = 1; id <= size; id++) {
                entries.add(id + "@127.0.0.1:" + freePort());
            }
            this.voters = String.join(",", entries);
            java.nio.file.Files.createDirectories(root);
            java.nio.file.Files.writeString(saved, voters);
        }
        this.servers = new ControllerServer[size];
        for (int id = 1; id <= size; id++) {
            start(id);
        }
        awaitFeatureReports();
    }

    /**
     * Waits until every voter has applied every voter's feature report: voters report when they
     * first start, and a report landing in the middle of a test would make voters' states differ
     * at the moment the test compares them.
     */
    private void awaitFeatureReports() throws IOException {
        long reporters = java.util.stream.IntStream.rangeClosed(1, servers.length)
                .filter(id -> options.apply(id).reportFeatures()).count();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            boolean all = true;
            for (ControllerServer s : servers) {
                all &= s.state().voterFeatures().size() >= reporters;
            }
            if (all) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("voters did not all report their feature levels within 60 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    /** A port free now, for a server started later, often in another process (see {@link io.aloft.servers.FreePorts}). */
    public static int freePort() {
        return io.aloft.servers.FreePorts.next();
    }

    public String voters() {
        return voters;
    }

    /** The config of voter {@code id} (1-based). */
    public ControllerConfig config(int id) {
        return tuning.apply(ControllerConfig.builder()
                        .nodeId(id)
                        .voters(voters)
                        .dataDir(root.resolve("voter-" + id))
                        .requestTimeoutMs(30_000))
                .build();
    }

    /** A client config (node id 100, not a voter). */
    public ControllerConfig clientConfig() {
        return tuning.apply(ControllerConfig.builder().nodeId(100).voters(voters).dataDir(root.resolve("client"))
                .requestTimeoutMs(30_000)).build();
    }

    public ControllerClient newClient() {
        return ControllerClient.create(clientConfig());
    }

    public void start(int id) throws IOException {
        start(id, options.apply(id));
    }

    /** Starts voter {@code id} with other options than the quorum's (a new build, say). */
    public void start(int id, ControllerServer.Options voterOptions) throws IOException {
        servers[id - 1] = ControllerServer.start(config(id), voterOptions);
    }

    public void stop(int id) throws IOException {
        ControllerServer s = servers[id - 1];
        servers[id - 1] = null;
        if (s != null) {
            s.close();
        }
    }

    public ControllerServer server(int id) {
        return servers[id - 1];
    }

    public int size() {
        return servers.length;
    }

    /** The running voter that is leader, waiting up to 30 s for one. */
    public int awaitLeader() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (ControllerServer s : servers) {
                if (s != null && s.isLeader()) {
                    return s.nodeId();
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no leader within 30 s among " + voters);
    }

    /** Waits until every running voter has applied at least {@code index}. */
    public void awaitApplied(long index) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (ControllerServer s : servers) {
                if (s != null && s.lastAppliedIndex() < index) {
                    all = false;
                }
            }
            if (all) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("voters did not apply index " + index + ": " + java.util.Arrays.stream(servers)
                .map(s -> s == null ? "down" : s.nodeId() + "@" + s.lastAppliedIndex()).collect(Collectors.joining(", ")));
    }

    /** The highest applied index among running voters. */
    public long maxApplied() {
        long max = -1;
        for (ControllerServer s : servers) {
            if (s != null) {
                max = Math.max(max, s.lastAppliedIndex());
            }
        }
        return max;
    }

    @Override
    public void close() throws IOException {
        for (int id = 1; id <= servers.length; id++) {
            stop(id);
        }
    }
}
