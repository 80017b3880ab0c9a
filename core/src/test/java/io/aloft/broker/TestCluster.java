package io.aloft.broker;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.TestQuorum;
import io.aloft.controller.client.ControllerClient;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A cluster of broker processes ({@link BrokerChild}, so none outlives the test JVM) on 127.0.0.1:
 * brokers 1..N sharing one {@code file://} object directory, each with its own data directory and
 * WAL, and a controller quorum either embedded in the first three brokers (the first one alone
 * below three) or made of dedicated controller processes ({@code process.roles=controller}, ids
 * 101..). Each node's output goes to {@code target/cluster/<start time>/node-ID.log}, kept for evidence.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class TestCluster implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 120_000;

    private final Path dir;
    /** Under target, kept after the test (the data directory is a temp dir JUnit deletes). */
    private final Path logDir;
    private final Map<Integer, Path> configs = new LinkedHashMap<>();
    private final Map<Integer, Process> processes = new LinkedHashMap<>();
    private final Map<Integer, Integer> ports = new LinkedHashMap<>();
    private final Map<Integer, Map<String, String>> perNode = new LinkedHashMap<>();
    /** Broker ids: 1..N from the start, and any added later. */
    private final List<Integer> brokerIds = new ArrayList<>();
    private final int brokers;
    private String voters;
    private Map<String, String> extra = Map.of();
    private List<Integer> voterIds = List.of();

    /**
     * Writes every node's properties and starts them all at once (a broker with an embedded voter
     * waits for its quorum, which needs the others); returns once every broker answers Admin with
     * the whole cluster.
     *
     * @param controllers dedicated controller processes (0: voters embedded in brokers)
     * @param extra properties for every node, over the generated ones ({@code {port}} in a value
     *     stands for the broker's client port: the PLAINTEXT listener's)
     */
    static TestCluster start(Path dir, int brokers, int controllers, Map<String, String> extra) throws Exception {
        return start(dir, brokers, controllers, extra, Map.of());
    }

    /** As above, with properties for some nodes over those: {@code perNode.get(id)} for node {@code id}. */
    static TestCluster start(Path dir, int brokers, int controllers, Map<String, String> extra,
            Map<Integer, Map<String, String>> perNode) throws Exception {
        TestCluster cluster = new TestCluster(dir, brokers);
        try {
            cluster.perNode.putAll(perNode);
            cluster.configure(controllers, extra);
            for (int id : cluster.configs.keySet()) {
                cluster.launch(id);
            }
            cluster.awaitBrokers();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private TestCluster(Path dir, int brokers) throws IOException {
        this.dir = dir;
        this.logDir = Files.createDirectories(Path.of(System.getProperty("aloft.test.logdir", "target"), "cluster",
                Long.toString(System.currentTimeMillis())));
        this.brokers = brokers;
    }

    private void configure(int controllers, Map<String, String> extra) throws IOException {
        List<Integer> voterIds = new ArrayList<>();
        if (controllers > 0) {
            for (int i = 1; i <= controllers; i++) {
                voterIds.add(100 + i);
            }
        } else {
            for (int i = 1; i <= (brokers >= 3 ? 3 : 1); i++) {
                voterIds.add(i);
            }
        }
        List<String> voters = new ArrayList<>();
        for (int id : voterIds) {
            voters.add(id + "@127.0.0.1:" + TestQuorum.freePort());
        }
        this.voters = String.join(",", voters);
        this.voterIds = voterIds;
        List<Integer> ids = new ArrayList<>();
        if (controllers > 0) {
            ids.addAll(voterIds);
        }
        for (int i = 1; i <= brokers; i++) {
            ids.add(i);
        }
        this.extra = extra;
        for (int id : ids) {
            writeConfig(id, id <= brokers);
        }
    }

    private void writeConfig(int id, boolean broker) throws IOException {
        Path objects = Files.createDirectories(dir.resolve("objects"));
        Map<String, String> p = new LinkedHashMap<>();
        p.put("node.id", Integer.toString(id));
        p.put("process.roles", !broker ? "controller" : voterIds.contains(id) ? "broker,controller" : "broker");
        p.put("controller.quorum.voters", voters);
        p.put("aloft.data.dir", dir.resolve("node-" + id).toString());
        if (broker) {
            int port = TestQuorum.freePort();
            ports.put(id, port);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("s3.url", "file://" + objects.toAbsolutePath());
            p.put("wal.capacity.bytes", Long.toString(64L << 20));
            p.put("s3.log.cache.size.bytes", Long.toString(16L << 20));
            p.put("s3.wal.upload.threshold.bytes", Long.toString(4L << 20));
            p.put("s3.block.cache.size.bytes", Long.toString(16L << 20));
            p.put("group.initial.rebalance.delay.ms", "0");
        }
        p.putAll(extra);
        p.putAll(perNode.getOrDefault(id, Map.of()));
        if (broker) {
            // "{port}" in a value: this broker's client port (so a test can add listeners beside it).
            p.replaceAll((k, v) -> v.replace("{port}", Integer.toString(ports.get(id))));
        }
        if (broker) {
            brokerIds.add(id);
        }
        StringBuilder text = new StringBuilder();
        p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Path config = dir.resolve("node-" + id + ".properties");
        Files.writeString(config, text.toString());
        configs.put(id, config);
    }

    private void launch(int id) throws IOException {
        boolean controllerOnly = !brokerIds.contains(id);
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start (C1 only, one compiler thread): several of them share 2 cores.
                controllerOnly ? "-Xmx128m" : "-Xmx320m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:CICompilerCount=1",
                "-Dlog4j2.configurationFile=" + childLogConfig(), "-Dlog4j2.shutdownHookEnabled=false",
                "-cp", System.getProperty("java.class.path"), BrokerChild.class.getName(),
                configs.get(id).toString());
        Path log = logFile(id);
        Files.writeString(log, "=== start " + java.time.Instant.now() + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        // Standard input stays a pipe this JVM never closes: BrokerChild halts at its EOF.
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        processes.put(id, pb.start());
    }

    private void awaitBrokers() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        for (int id = 1; id <= brokers; id++) {
            try (Admin admin = admin(id)) {
                while (true) {
                    for (Map.Entry<Integer, Process> e : processes.entrySet()) {
                        if (!e.getValue().isAlive()) {
                            throw new IllegalStateException("node " + e.getKey() + " exited with status "
                                    + e.getValue().exitValue() + "; see " + logFile(e.getKey()));
                        }
                    }
                    try {
                        if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == brokers) {
                            break;
                        }
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        // Not serving yet.
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("broker " + id + " does not see " + brokers + " brokers after "
                                + START_TIMEOUT_MS + " ms; logs in " + logDir);
                    }
                    TimeUnit.MILLISECONDS.sleep(100);
                }
            }
        }
    }

    /** A client of the cluster's controller quorum (the caller closes it). */
    ControllerClient controller() {
        return ControllerClient.create(ControllerConfig.builder()
                .nodeId(999).voters(voters).build());
    }

    /** An Admin bootstrapped on broker {@code id} alone. */
    Admin admin(int id) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(id),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000));
    }

    /**
     * A topic's partitions as Admin (bootstrapped on every broker: any may be down) describes them,
     * once it can: a broker may learn of a topic just created through another a moment later (the
     * change feed), as with Kafka.
     */
    List<TopicPartitionInfo> partitions(String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            while (true) {
                try {
                    return admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic)
                            .partitions();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /** The partition's leader, as Metadata shows it. */
    int leader(String topic, int partition) throws Exception {
        return partitions(topic).get(partition).leader().id();
    }

    /** Waits until Metadata shows {@code broker} leading the partition (brokers learn of moves within moments). */
    void awaitLeader(String topic, int partition, int broker, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (leader(topic, partition) != broker) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": " + topic + "-" + partition + " not led by broker " + broker
                        + " within 30 s");
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Broker {@code id}'s client address. */
    String bootstrap(int id) {
        return "127.0.0.1:" + ports.get(id);
    }

    /** The node id of the controller quorum's leader now, as the voters describe themselves; -1 if none says so. */
    int controllerLeader() throws java.io.IOException {
        org.apache.ratis.protocol.GroupInfoReply info = leaderInfo();
        return info == null ? -1 : Integer.parseInt(info.getRoleInfoProto().getSelf().getId().toStringUtf8()
                .replaceAll("\\D", ""));
    }

    private List<io.aloft.controller.ControllerConfig.Voter> voterList() {
        return java.util.Arrays.stream(voters.split(","))
                .map(v -> {
                    String[] idAndAddress = v.split("@");
                    String[] hostPort = idAndAddress[1].split(":");
                    return new io.aloft.controller.ControllerConfig.Voter(Integer.parseInt(idAndAddress[0]),
                            hostPort[0], Integer.parseInt(hostPort[1]));
                }).toList();
    }

    /** Every broker's address, comma-separated. */
    String bootstrapAll() {
        return brokerIds.stream().map(this::bootstrap).collect(java.util.stream.Collectors.joining(","));
    }

    /** Broker {@code id}'s client port. */
    int port(int id) {
        return ports.get(id);
    }

    Path logFile(int id) {
        return logDir.resolve("node-" + id + ".log");
    }

    private static Path childLogConfig() {
        try {
            return Path.of(TestCluster.class.getClassLoader().getResource("broker-child-log4j2.xml").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts broker {@code id}, not one of those the cluster started with, on the same quorum and
     * object storage ({@code props} over the cluster's extra properties); returns once every running
     * broker lists it in DescribeCluster (an Admin asks any of them).
     */
    void addBroker(int id, Map<String, String> props) throws Exception {
        if (configs.containsKey(id)) {
            throw new IllegalArgumentException("node " + id + " exists");
        }
        perNode.put(id, props);
        writeConfig(id, true);
        launch(id);
        awaitListed(id, "join");
    }

    /**
     * Starts node {@code id} again after {@link #kill} or {@link #stop}, with its data directory
     * as it was left. A broker: returns once every running broker lists it in DescribeCluster. A
     * dedicated controller voter: returns once its process runs (nothing lists voters; the caller
     * waits for what it needs of the quorum, such as acknowledgements resuming).
     */
    void restart(int id) throws Exception {
        if (processes.get(id).isAlive()) {
            throw new IllegalStateException("node " + id + " is running");
        }
        launch(id);
        if (brokerIds.contains(id)) {
            awaitListed(id, "come back");
        }
        if (voterIds.contains(id)) {
            awaitVoterCaughtUp(id);
        }
    }

    /**
     * Waits until restarted voter {@code id} has committed what the leader had committed when the
     * wait began (the leader's view of each voter's commit index), so a test's next failure is one
     * failure at a time: a second voter lost while the first is still catching up is a quorum loss.
     * A voter that does not catch up within a minute fails the test, with every node's threads dumped.
     */
    private void awaitVoterCaughtUp(int id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long target = -1;
        String last = "no leader";
        while (System.nanoTime() < deadline) {
            org.apache.ratis.protocol.GroupInfoReply leader = leaderInfo();
            if (leader != null) {
                long leaderCommit = -1;
                long voterCommit = -1;
                for (org.apache.ratis.proto.RaftProtos.CommitInfoProto c : leader.getCommitInfos()) {
                    String peer = c.getServer().getId().toStringUtf8();
                    if (peer.equals(io.aloft.controller.RaftSetup.peerId(id).toString())) {
                        voterCommit = c.getCommitIndex();
                    }
                    if (peer.equals(leader.getRoleInfoProto().getSelf().getId().toStringUtf8())) {
                        leaderCommit = c.getCommitIndex();
                    }
                }
                target = target < 0 ? leaderCommit : target;
                last = "voter " + id + " at commit index " + voterCommit + ", leader at " + leaderCommit;
                if (target >= 0 && voterCommit >= target) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        Path dumps = dumpThreads();
        throw new AssertionError("restarted voter " + id + " did not catch up with the controller leader within 60 s ("
                + last + ", target " + target + "); thread dumps: " + dumps + ", logs: " + logDir);
    }

    /** The leader's group information, or null if no voter says it leads now. */
    private org.apache.ratis.protocol.GroupInfoReply leaderInfo() throws java.io.IOException {
        List<io.aloft.controller.ControllerConfig.Voter> voterList = voterList();
        try (org.apache.ratis.client.RaftClient admin = org.apache.ratis.client.RaftClient.newBuilder()
                .setProperties(io.aloft.controller.RaftSetup.baseProperties())
                .setRaftGroup(io.aloft.controller.RaftSetup.group(voterList))
                .setRetryPolicy(org.apache.ratis.retry.RetryPolicies.noRetry()).build()) {
            for (io.aloft.controller.ControllerConfig.Voter v : voterList) {
                try {
                    org.apache.ratis.protocol.GroupInfoReply info = admin.getGroupManagementApi(
                            io.aloft.controller.RaftSetup.peerId(v.id())).info(io.aloft.controller.RaftSetup.groupId());
                    if (info.getRoleInfoProto().getRole() == org.apache.ratis.proto.RaftProtos.RaftPeerRole.LEADER) {
                        return info;
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    // a voter down or paused: ask the next
                }
            }
        }
        return null;
    }

    /**
     * Writes a thread dump of every running node ({@code jstack}) next to its log, for a failure
     * whose cause is a stuck thread (a wedged controller voter, say); returns the directory.
     */
    Path dumpThreads() {
        Path jstack = Path.of(System.getProperty("java.home"), "bin", "jstack");
        long now = System.currentTimeMillis();
        processes.forEach((id, process) -> {
            if (!process.isAlive()) {
                return;
            }
            Path out = logDir.resolve("threads-node-" + id + "-" + now + ".txt");
            try {
                Process p = new ProcessBuilder(jstack.toString(), Long.toString(process.pid()))
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                System.err.println("thread dump of node " + id + " failed: " + e);
            }
        });
        return logDir;
    }

    private void awaitListed(int id, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        for (int other : brokerIds) {
            if (!processes.containsKey(other) || !processes.get(other).isAlive()) {
                continue;
            }
            // Direct to that broker only: a bootstrapped Admin would route to any of them.
            while (!listsBroker(other, id)) {
                if (!processes.get(id).isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("broker " + id + " did not " + what + " (broker " + other
                            + " does not list it); see " + logFile(id));
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    /** Whether broker {@code asked}'s own DescribeCluster answer lists broker {@code id}. */
    boolean listsBroker(int asked, int id) throws Exception {
        try (RawKafkaClient raw = new RawKafkaClient(bootstrap(asked))) {
            DescribeClusterResponse r = raw.send(new DescribeClusterRequest.Builder(new DescribeClusterRequestData())
                    .build((short) 0));
            return r.data().brokers().find(id) != null;
        } catch (java.io.IOException e) {
            return false; // not listening yet
        }
    }

    /** Stops node {@code id} gracefully ({@link #terminate}) and returns its exit status. */
    int stop(int id) throws InterruptedException {
        Process p = terminate(id);
        if (!p.waitFor(START_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("node " + id + " did not exit after SIGTERM; see " + logFile(id));
        }
        return p.exitValue();
    }

    /** SIGKILLs node {@code id} and waits for it to be gone. */
    void kill(int id) throws InterruptedException {
        Process p = processes.get(id);
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + id + " still runs 30 s after SIGKILL");
        }
    }

    /** SIGSTOPs node {@code id}: it stays alive but does nothing (a long pause, a frozen VM) until {@link #resume}. */
    void pause(int id) throws Exception {
        signal(id, "STOP");
    }

    /** SIGCONTs node {@code id} after {@link #pause}. */
    void resume(int id) throws Exception {
        signal(id, "CONT");
    }

    /** Whether node {@code id}'s process is running (not exited). */
    boolean alive(int id) {
        return processes.get(id).isAlive();
    }

    /** Waits up to {@code timeoutMs} for node {@code id} to exit; its exit status. */
    int awaitExit(int id, long timeoutMs) throws InterruptedException {
        Process p = processes.get(id);
        if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("node " + id + " still runs after " + timeoutMs + " ms; see " + logFile(id));
        }
        return p.exitValue();
    }

    private void signal(int id, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(processes.get(id).pid()))
                .redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " of node " + id + " failed");
        }
    }

    /**
     * Sends node {@code id} SIGTERM, as an operator's {@code kill} or Kubernetes' preStop does: the
     * broker shuts down gracefully (drains, uploads, leaves the cluster) and exits. Returns its
     * process, for the caller to wait on.
     */
    Process terminate(int id) {
        Process p = processes.get(id);
        // SIGTERM through the handle: Process.destroy() would also close the child's standard input,
        // which BrokerChild takes for its parent's death and halts at once.
        p.toHandle().destroy();
        return p;
    }

    /** SIGKILLs every node: tests keep nothing, and a graceful stop of several nodes costs seconds. */
    @Override
    public void close() throws InterruptedException {
        for (Process p : processes.values()) {
            p.destroyForcibly();
        }
        for (Process p : processes.values()) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        processes.clear();
    }
}
