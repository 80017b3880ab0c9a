package io.aloft.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Aloft as N broker processes ({@code io.aloft.broker.BrokerMain}, node ids 1..N) on 127.0.0.1
 * sharing one object store, the controller quorum embedded in brokers 1-3 ({@code
 * process.roles=broker,controller}; broker 1 alone below three brokers), as {@code
 * scripts/cluster.sh start N} runs it and with the same per-broker sizes (WAL, log cache, block
 * cache, upload threshold) that script writes for several brokers on one machine. Objects go to a
 * {@code file://} directory, or with {@code onS3} to a bucket on a versitygw this cluster starts.
 * The brokers run from this JVM's class path.
 *
 * <p>Not thread-safe (see {@link NodeCluster}).
 */
public final class AloftCluster extends NodeCluster {
    private static final String BUCKET = "aloft-cluster";

    private final boolean onS3;
    private final Map<String, String> extraProperties;
    private VersityGateway gateway;
    private boolean objectWal;
    private IntFunction<Map<String, String>> perBroker = id -> Map.of();
    private Path gatewayData;

    /**
     * @param heap -Xms and -Xmx of each broker
     * @param onS3 objects on a local versitygw rather than a {@code file://} directory
     * @param extraProperties added to every broker's properties last
     */
    public AloftCluster(int brokers, String heap, boolean onS3, Path scratchParent, Map<String, String> extraProperties,
            Duration startTimeout) {
        super(brokers, heap, scratchParent, startTimeout);
        this.onS3 = onS3;
        this.extraProperties = Map.copyOf(extraProperties);
    }

    /**
     * Puts every broker's WAL in object storage ({@code wal.url}: the same bucket on the same
     * versitygw as the objects, under {@code wal/node-<id>/}) instead of the WAL file. Needs {@code
     * onS3}; call before {@link #start()}.
     *
     * @throws IllegalStateException if the objects are not on S3 or the cluster was started
     */
    public AloftCluster objectWal() {
        if (!onS3) {
            throw new IllegalStateException("a WAL in object storage needs onS3 (the versitygw this cluster starts)");
        }
        if (directory() != null) {
            throw new IllegalStateException("objectWal() must be called before start()");
        }
        this.objectWal = true;
        return this;
    }

    /**
     * Properties that differ between brokers (e.g. {@code broker.rack}, or {@code metrics.listener}
     * on a port of {@link FreePorts#next()}), added to broker {@code id}'s properties after the
     * cluster-wide {@code extraProperties}. Call before {@link #start()}.
     *
     * @param properties broker id to its own properties; called once per broker at start
     * @throws IllegalStateException if the cluster was started
     */
    public AloftCluster perBroker(IntFunction<Map<String, String>> properties) {
        if (directory() != null) {
            throw new IllegalStateException("perBroker() must be called before start()");
        }
        this.perBroker = Objects.requireNonNull(properties, "properties");
        return this;
    }

    /**
     * The directory in which versitygw keeps broker {@code id}'s WAL objects (one file per object,
     * named by its sequence number), or null without {@link #objectWal()} or before {@link #start()}.
     * Read-only use: a benchmark counts the WAL's PUTs from it.
     */
    public Path walObjectDir(int id) {
        return objectWal && gatewayData != null ? gatewayData.resolve(BUCKET).resolve("wal").resolve("node-" + id)
                : null;
    }

    @Override
    String shortName() {
        return "aloft";
    }

    /** As bin/aloft-server.sh. */
    static List<String> gcFlags() {
        return List.of("-XX:+UseZGC");
    }

    @Override
    public String description() {
        return "Aloft (" + brokers + " broker processes, controller quorum embedded in " + Math.min(3, brokers)
                + " of them, " + (objectWal ? "WAL in object storage (wal.url: the same bucket and versitygw)"
                        : "WAL files with Direct IO") + ", objects on " + (onS3 ? "S3 (one local versitygw)" : "file://")
                + ", scripts/cluster.sh's per-broker cache sizes; -Xmx" + heap + " " + String.join(" ", gcFlags()) + ")";
    }

    @Override
    List<Node> prepare(Path dir) throws IOException, InterruptedException {
        String url;
        if (onS3) {
            gateway = VersityGateway.start(Files.createDirectories(dir.resolve("s3")), BUCKET);
            url = gateway.url(BUCKET);
            gatewayData = gateway.dataDir();
        } else {
            url = "file://" + Files.createDirectories(dir.resolve("objects")).toAbsolutePath();
        }
        int voterCount = brokers >= 3 ? 3 : 1;
        List<String> voters = new ArrayList<>();
        for (int id = 1; id <= voterCount; id++) {
            voters.add(id + "@127.0.0.1:" + ChildProcess.freePort());
        }
        Path log4j = dir.resolve("log4j2.xml");
        // Aloft's own INFO lines (partitions opened and closed, drain steps) are the evidence for a
        // move's timing; Ratis stays at WARN and its failed connections to a stopped voter at ERROR.
        ChildProcess.writeLog4j2(log4j, """
                <Logger name="io.aloft" level="INFO"/>
                    <Logger name="org.apache.ratis.client.impl.OrderedAsync" level="OFF"/>""");
        List<Node> nodes = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            Path nodeDir = Files.createDirectories(dir.resolve("node-" + id));
            int port = ChildProcess.freePort();
            Map<String, String> p = new LinkedHashMap<>();
            p.put("node.id", Integer.toString(id));
            p.put("process.roles", id <= voterCount ? "broker,controller" : "broker");
            p.put("controller.quorum.voters", String.join(",", voters));
            p.put("aloft.data.dir", nodeDir.resolve("data").toString());
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("s3.url", url);
            if (objectWal) {
                p.put("wal.url", url);
            }
            // As scripts/cluster.sh: sized for several brokers on one machine.
            p.put("wal.capacity.bytes", Long.toString(256L << 20));
            p.put("s3.log.cache.size.bytes", Long.toString(64L << 20));
            p.put("s3.block.cache.size.bytes", Long.toString(64L << 20));
            p.put("s3.wal.upload.threshold.bytes", Long.toString(16L << 20));
            p.put("group.initial.rebalance.delay.ms", "0");
            p.putAll(extraProperties);
            p.putAll(perBroker.apply(id));
            Path file = nodeDir.resolve("server.properties");
            ChildProcess.writeProperties(file, p, "Generated by the Aloft benchmark: broker " + id + " of a local cluster");
            List<String> command = new ArrayList<>();
            command.add(ChildProcess.javaBinary());
            command.addAll(jvmFlags(gcFlags()));
            // As bin/aloft-server.sh: log4j must not stop before the broker's own shutdown hook has logged.
            command.addAll(List.of("-Dlog4j2.shutdownHookEnabled=false", "-Dlog4j2.configurationFile=" + log4j,
                    "-cp", AloftServer.classPath(), "io.aloft.broker.BrokerMain", file.toString()));
            nodes.add(new Node(id, true, port, command, nodeDir));
        }
        return nodes;
    }

    @Override
    void afterStop() {
        if (gateway != null) {
            gateway.stop();
            gateway = null;
        }
    }
}
