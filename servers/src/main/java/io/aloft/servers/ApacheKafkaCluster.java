package io.aloft.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * Apache Kafka as N KRaft brokers ({@code process.roles=broker}, node ids 1..N) and one dedicated
 * KRaft controller ({@code process.roles=controller}, node id 100, the single static voter) on
 * 127.0.0.1, each in its own JVM with its own log dir, all formatted with one cluster id. Brokers
 * get Kafka's defaults except what one machine needs: replication factor 1 for the internal topics
 * and no initial rebalance delay. Replication itself (the copy a reassignment makes) runs at
 * Kafka's defaults, unthrottled.
 *
 * <p>Not thread-safe (see {@link NodeCluster}).
 */
public final class ApacheKafkaCluster extends NodeCluster {
    /** The controller's node id: outside the brokers' 1..N. */
    static final int CONTROLLER_ID = 100;
    private static final String CONTROLLER_HEAP = "512m";

    private final KafkaJars jars;
    private final Map<String, String> extraProperties;

    /**
     * @param libsDir Kafka's jars ({@link ApacheKafkaServer#findLibsDir()})
     * @param heap -Xms and -Xmx of each broker (the controller gets {@value #CONTROLLER_HEAP})
     * @param extraProperties added to every broker's properties last
     */
    public ApacheKafkaCluster(Path libsDir, int brokers, String heap, Path scratchParent,
            Map<String, String> extraProperties, Duration startTimeout) throws IOException {
        super(brokers, heap, scratchParent, startTimeout);
        this.jars = new KafkaJars(libsDir);
        this.extraProperties = Map.copyOf(extraProperties);
    }

    @Override
    String shortName() {
        return "kafka";
    }

    @Override
    public String description() {
        return "Apache Kafka " + jars.version() + " (KRaft: " + brokers + " brokers, process.roles=broker, and one "
                + "dedicated controller node, process.roles=controller; Kafka's defaults, no fsync per write; brokers -Xmx"
                + heap + " " + String.join(" ", KafkaJars.gcFlags()) + ")";
    }

    @Override
    List<Node> prepare(Path dir) throws IOException, InterruptedException {
        String clusterId = Uuid.randomUuid().toString();
        int controllerPort = ChildProcess.freePort();
        String voters = CONTROLLER_ID + "@127.0.0.1:" + controllerPort;
        Path log4j = dir.resolve("log4j2.xml");
        ChildProcess.writeLog4j2(log4j);
        List<Node> nodes = new ArrayList<>();

        Path controllerDir = Files.createDirectories(dir.resolve("node-" + CONTROLLER_ID));
        Map<String, String> c = new LinkedHashMap<>();
        c.put("process.roles", "controller");
        c.put("node.id", Integer.toString(CONTROLLER_ID));
        c.put("controller.quorum.voters", voters);
        c.put("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        c.put("log.dirs", controllerDir.resolve("kafka-logs").toString());
        nodes.add(node(CONTROLLER_ID, false, -1, controllerDir, c, List.of("-Xms" + CONTROLLER_HEAP,
                "-Xmx" + CONTROLLER_HEAP), log4j, clusterId));

        for (int id = 1; id <= brokers; id++) {
            Path nodeDir = Files.createDirectories(dir.resolve("node-" + id));
            int port = ChildProcess.freePort();
            Map<String, String> p = new LinkedHashMap<>();
            p.put("process.roles", "broker");
            p.put("node.id", Integer.toString(id));
            p.put("controller.quorum.voters", voters);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", nodeDir.resolve("kafka-logs").toString());
            p.put("offsets.topic.replication.factor", "1");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.putAll(extraProperties);
            nodes.add(node(id, true, port, nodeDir, p, List.of("-Xms" + heap, "-Xmx" + heap), log4j, clusterId));
        }
        return nodes;
    }

    private Node node(int id, boolean broker, int port, Path nodeDir, Map<String, String> props, List<String> heapFlags,
            Path log4j, String clusterId) throws IOException, InterruptedException {
        Path file = nodeDir.resolve("server.properties");
        ChildProcess.writeProperties(file, props, "Generated by the Aloft benchmark: node " + id + " of a local cluster");
        jars.format(nodeDir, file, log4j, clusterId);
        List<String> flags = new ArrayList<>(heapFlags);
        flags.addAll(KafkaJars.gcFlags());
        return new Node(id, broker, port, jars.serverCommand(flags, log4j, file), nodeDir);
    }
}
