package io.aloft.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/aloft-container.sh}, the image's entrypoint, run from this repository as a child process
 * on the classes this build compiled ({@code ALOFT_CLASSPATH}; in the image, /opt/aloft/libs): a
 * broker configured from a file plus {@code ALOFT_PROP_*}, its node id from the pod ordinal in
 * HOSTNAME, serves and drains on SIGTERM (status 143); wrong environments fail at once with status 2
 * and the variable's name; the autoscaler mode runs the autoscaler from the same class path.
 */
class ContainerScriptTest {
    private static final Path ROOT = Path.of(System.getProperty("aloft.project.root", "..")).toAbsolutePath()
            .normalize();
    private static final Path SCRIPT = ROOT.resolve("bin/aloft-container.sh");
    private static final Pattern STARTED = Pattern.compile("Broker 0 of cluster .* started");
    private static final long START_TIMEOUT_S = 120;
    /** The drain of a broker with one partition; the chart's terminationGracePeriodSeconds is longer. */
    private static final long DRAIN_TIMEOUT_S = 60;

    @TempDir
    Path dir;
    private Process broker;

    @AfterEach
    void killLeftover() {
        if (broker != null && broker.isAlive()) {
            broker.destroyForcibly();
        }
    }

    @Test
    void broker_configFromFileAndEnv_servesAndDrainsOnSigterm() throws Exception {
        int port = freePort();
        int controllerPort = freePort();
        Path file = dir.resolve("server.properties");
        // As a chart's ConfigMap would hold it: no node.id, per-pod values through placeholders.
        Files.writeString(file, String.join("\n",
                "listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.quorum.voters=${NODE_ID}@127.0.0.1:" + controllerPort,
                "metrics.listener=",
                "broker.rack=from-the-file",
                "wal.capacity.bytes=" + (256 << 20),
                "s3.log.cache.size.bytes=" + (64 << 20),
                "s3.block.cache.size.bytes=" + (64 << 20),
                "s3.wal.upload.threshold.bytes=" + (16 << 20),
                "group.initial.rebalance.delay.ms=0", ""));
        Path data = dir.resolve("data");
        Path log = dir.resolve("broker.log");
        ProcessBuilder pb = script(List.of());
        Map<String, String> env = pb.environment();
        env.put("HOSTNAME", "aloft-broker-0");
        env.put("POD_NAMESPACE", "test-ns");
        env.put("ALOFT_CONFIG_FILE", file.toString());
        env.put("ALOFT_PROP_ALOFT_DATA_DIR", data.toString());
        env.put("ALOFT_PROP_S3_URL", data.resolve("objects").toUri().toString());
        // The environment wins over the file; placeholders are filled in env values too.
        env.put("ALOFT_PROP_BROKER_RACK", "zone-${NODE_ID}-${POD_NAME}-${POD_NAMESPACE}");
        env.put("ALOFT_GENERATED_CONFIG", dir.resolve("generated/server.properties").toString());
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        broker = pb.start();

        awaitLog(log, STARTED, broker);
        String bootstrap = "127.0.0.1:" + port;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            assertEquals(1, nodes.size(), nodes.toString());
            Node node = nodes.iterator().next();
            assertEquals(0, node.id(), "node.id from HOSTNAME's ordinal");
            assertEquals("zone-0-aloft-broker-0-test-ns", node.rack(), "ALOFT_PROP_BROKER_RACK, filled in");
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            RecordMetadata written = producer.send(new ProducerRecord<>("container", "k", "v"))
                    .get(60, TimeUnit.SECONDS);
            assertEquals(0, written.offset());
        }

        // SIGTERM to the script's pid reaches the JVM itself: the script exec'd it.
        long pid = broker.pid();
        broker.destroy();
        assertTrue(broker.waitFor(DRAIN_TIMEOUT_S, TimeUnit.SECONDS), "stopped within " + DRAIN_TIMEOUT_S + " s:\n"
                + tail(log));
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(143, broker.exitValue(), "graceful shutdown's status:\n" + tail(log));
        assertTrue(out.contains("Shutting down broker 0") && out.contains("Broker 0 stopped"),
                "the broker's graceful shutdown ran:\n" + tail(log));
        assertTrue(out.contains("node.id=0; server.properties written to"), out);
        assertTrue(ProcessHandle.of(pid).isEmpty() || !ProcessHandle.of(pid).get().isAlive(), "pid " + pid + " gone");
    }

    @Test
    void config_fileThenEnvThenNodeId_keysAndPlaceholders() throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, "listeners=PLAINTEXT://:9092\nadvertised.listeners=PLAINTEXT://${POD_NAME}.aloft"
                + ".${POD_NAMESPACE}.svc:9092\nnode.id=5\n");
        Result r = run(List.of("config"), Map.of(
                "ALOFT_CONFIG_FILE", file.toString(),
                "HOSTNAME", "aloft-broker-3",
                "POD_NAMESPACE", "prod",
                "ALOFT_NODE_ID_OFFSET", "100",
                "ALOFT_PROP_S3_URL", "s3://bucket?endpoint=http://minio:9000&region=x",
                "ALOFT_PROP_SOME__KEY_NAME", "a\\b",
                "ALOFT_PROP_LISTENERS", "PLAINTEXT://:19092"));
        assertEquals(0, r.status, r.toString());
        Properties p = new Properties();
        p.load(new java.io.StringReader(r.out));
        assertEquals("PLAINTEXT://:19092", p.getProperty("listeners"), "env beats file: " + r.out);
        assertEquals("PLAINTEXT://aloft-broker-3.aloft.prod.svc:9092", p.getProperty("advertised.listeners"));
        assertEquals("s3://bucket?endpoint=http://minio:9000&region=x", p.getProperty("s3.url"));
        assertEquals("a\\b", p.getProperty("some_key.name"), "__ is an underscore, a backslash stays one");
        assertEquals("5", p.getProperty("node.id"), "the file's node.id beats the ordinal: " + r.out);

        Result ordinal = run(List.of("config"), Map.of("HOSTNAME", "aloft-broker-3", "ALOFT_NODE_ID_OFFSET", "100"));
        assertEquals(0, ordinal.status, ordinal.toString());
        assertTrue(ordinal.out.endsWith("\nnode.id=103\n"), ordinal.out);
        Result explicit = run(List.of("config"), Map.of("HOSTNAME", "aloft-broker-3", "ALOFT_NODE_ID", "7"));
        assertTrue(explicit.out.endsWith("\nnode.id=7\n"), explicit.toString());
    }

    @Test
    void badEnvironment_exits2NamingTheVariable() throws Exception {
        assertFailsNaming("ALOFT_PROP_S3_URL", Map.of("HOSTNAME", "aloft-broker-0", "ALOFT_PROP_S3_URL", ""));
        assertFailsNaming("ALOFT_NODE_ID", Map.of("HOSTNAME", "aloft-broker"));
        assertFailsNaming("ALOFT_NODE_ID", Map.of("HOSTNAME", "aloft-broker-0", "ALOFT_NODE_ID", "one"));
        assertFailsNaming("ALOFT_NODE_ID_OFFSET", Map.of("HOSTNAME", "aloft-broker-0", "ALOFT_NODE_ID_OFFSET", "-3"));
        assertFailsNaming("ALOFT_CONFIG_FILE", Map.of("HOSTNAME", "aloft-broker-0",
                "ALOFT_CONFIG_FILE", dir.resolve("missing.properties").toString()));
        assertFailsNaming("POD_NAMESPACE", Map.of("HOSTNAME", "aloft-broker-0",
                "ALOFT_PROP_ADVERTISED_LISTENERS", "PLAINTEXT://b.${POD_NAMESPACE}.svc:9092"));
        assertFailsNaming("ALOFT_PROP__S3", Map.of("HOSTNAME", "aloft-broker-0", "ALOFT_PROP__S3", "x"));
    }

    @Test
    void autoscaler_runsAutoscalerMainFromTheSameClassPath() throws Exception {
        Path policy = ROOT.resolve("autoscaler/examples/local.yaml");
        Result valid = run(List.of("autoscaler", "validate", "--policy", policy.toString()), Map.of());
        assertEquals(0, valid.status, valid.toString());
        assertTrue(valid.out.contains(policy + ": valid"), valid.toString());

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "no: policy\n");
        Result invalid = run(List.of("autoscaler", "validate", "--policy", bad.toString()), Map.of());
        assertEquals(2, invalid.status, "AutoscalerMain's status for an invalid policy: " + invalid);
    }

    private void assertFailsNaming(String variable, Map<String, String> env) throws Exception {
        // "broker", not "config": the checks come before the JVM would start.
        Result r = run(List.of(), env);
        assertEquals(2, r.status, env + " -> " + r);
        assertTrue(r.err.startsWith("aloft-container.sh: ") && r.err.contains(variable),
                env + " -> message naming " + variable + ": " + r.err);
        assertTrue(r.out.isEmpty(), "no JVM started: " + r);
    }

    /** The script with a clean environment: none of this machine's ALOFT_* or POD_* variables. */
    private static ProcessBuilder script(List<String> args) {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("ALOFT_") || k.startsWith("POD_") || k.equals("HOSTNAME"));
        env.put("ALOFT_CLASSPATH", System.getProperty("java.class.path"));
        env.put("ALOFT_LOG4J_CONFIG", ROOT.resolve("config/log4j2.xml").toString());
        // A small, quickly started JVM: other tests share the 2 cores.
        env.put("ALOFT_HEAP_OPTS", "-Xmx384m");
        env.put("ALOFT_GC_OPTS", "-XX:+UseSerialGC");
        env.put("ALOFT_JVM_OPTS", "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1");
        env.put("ALOFT_AUTOSCALER_HEAP_OPTS", "-Xmx128m");
        return pb;
    }

    private record Result(int status, String out, String err) {
    }

    /** Runs the script to its end (bounded): the modes that exit by themselves. */
    private Result run(List<String> args, Map<String, String> extraEnv) throws IOException, InterruptedException {
        ProcessBuilder pb = script(args);
        pb.environment().putAll(extraEnv);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("aloft-container.sh " + args + " did not finish in 60 s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static void awaitLog(Path log, Pattern pattern, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_S);
        while (!pattern.matcher(Files.readString(log, StandardCharsets.UTF_8)).find()) {
            assertTrue(p.isAlive(), "the broker exited (" + (p.isAlive() ? "" : p.exitValue()) + "):\n" + tail(log));
            assertTrue(System.nanoTime() < deadline, "not started in " + START_TIMEOUT_S + " s:\n" + tail(log));
            Thread.sleep(200);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
