package io.aloft.autoscaler.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalBackend} on real broker processes started by {@code scripts/cluster.sh} from the
 * classes on this module's test class path ({@code ALOFT_CLASSPATH}; aloft-core is a test
 * dependency): a 1-broker cluster with an embedded voter grows to 2 brokers, both serving a topic,
 * and shrinks back by draining the added one, every record still readable; the voter is refused; a
 * new broker 2 (the id reused) serves again; a killed broker's directory is kept. One cluster for
 * the whole scenario: starting one costs more than each step.
 */
class LocalBackendTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "cluster.sh").toAbsolutePath().normalize();
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(150);

    @TempDir
    Path dir;
    private Path cluster;

    /** The environment of every script run: this build's classes, small JVMs (2 cores are shared). */
    private static Map<String, String> environment() {
        return Map.of(
                "ALOFT_CLASSPATH", System.getProperty("java.class.path"),
                "ALOFT_HEAP_OPTS", "-Xmx320m",
                "ALOFT_GC_OPTS", "-XX:+UseSerialGC",
                "ALOFT_JVM_OPTS", "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1",
                "ALOFT_CLUSTER_STOP_TIMEOUT", "30");
    }

    private LocalBackend backend(Path clusterDir) {
        return new LocalBackend(new LocalBackend.Config(clusterDir, SCRIPT, environment(), COMMAND_TIMEOUT));
    }

    /** Whatever a test left running is stopped (the script kills by the pids it recorded). */
    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            script("stop");
        }
    }

    @Test
    void addBroker_removeBroker_addAgain_growsAndShrinksTheClusterWithoutLosingRecords() throws Exception {
        cluster = dir.resolve("cluster");
        String bootstrap = script("start", "1", "--no-build");
        try (LocalBackend backend = backend(cluster);
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            assertEquals(List.of(1), backend.brokers());
            assertEquals(Set.of(1), backend.protectedBrokers(), "broker 1 embeds the only voter");
            assertEquals(-1, backend.removalCandidate(), "nothing may go: the only broker is a voter");

            int added = backend.addBroker();
            assertEquals(2, added, "one above the highest broker id");
            assertEquals(List.of(1, 2), backend.brokers());
            assertEquals(Set.of(1), backend.protectedBrokers());
            assertEquals(2, backend.removalCandidate());
            awaitBrokers(admin, Set.of(1, 2));

            // Two partitions on each broker, so that removing broker 2 has something to drain (the
            // controller places new partitions itself; a reassignment puts them where the test wants).
            String topic = "scaled";
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(60, TimeUnit.SECONDS);
            Map<TopicPartition, Optional<NewPartitionReassignment>> placement = new HashMap<>();
            for (int p = 0; p < 4; p++) {
                placement.put(new TopicPartition(topic, p),
                        Optional.of(new NewPartitionReassignment(List.of(p % 2 == 0 ? 1 : 2))));
            }
            admin.alterPartitionReassignments(placement).all().get(60, TimeUnit.SECONDS);
            await("every partition has a leader on brokers 1 and 2", () -> leaders(admin, topic).equals(Set.of(1, 2)));
            int records = 40;
            produce(bootstrap, topic, 4, 0, records);

            backend.removeBroker(2);
            assertEquals(List.of(1), backend.brokers());
            assertEquals(-1, backend.removalCandidate());
            try (Stream<Path> removed = Files.list(cluster.resolve("removed"))) {
                assertEquals(1, removed.filter(p -> p.getFileName().toString().startsWith("node-2-")).count(),
                        "broker 2's directory moved to removed/");
            }
            assertTrue(Files.notExists(cluster.resolve("node-2")), "no node-2 left for `start` to bring back");
            awaitBrokers(admin, Set.of(1));
            await("broker 1 leads every partition", () -> leaders(admin, topic).equals(Set.of(1)));
            assertEquals(records, consume(bootstrap, topic, 4, records).size());

            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> backend.removeBroker(1));
            assertTrue(refused.getMessage().contains("voter"), refused.getMessage());
            assertEquals(List.of(1), backend.brokers(), "the voter still runs");

            // Scale out after scale in: the next id is 2 again (one above the highest broker's, as a
            // StatefulSet reuses ordinals), on a fresh directory, and it serves a partition moved onto it.
            assertEquals(2, backend.addBroker());
            awaitBrokers(admin, Set.of(1, 2));
            admin.alterPartitionReassignments(Map.of(new TopicPartition(topic, 1),
                    Optional.of(new NewPartitionReassignment(List.of(2))))).all().get(60, TimeUnit.SECONDS);
            await("broker 2 leads partition 1 again", () -> leaders(admin, topic).equals(Set.of(1, 2)));
            produce(bootstrap, topic, 4, records, records);
            assertEquals(2 * records, consume(bootstrap, topic, 4, 2 * records).size(), "both rounds' records");

            // A broker that did not drain (SIGKILL) may hold acknowledged data only in its WAL: the
            // script refuses to set its directory aside.
            script("kill", "2");
            IOException killed = assertThrows(IOException.class, () -> backend.removeBroker(2));
            assertTrue(killed.getMessage().contains("not running"), killed.getMessage());
            assertTrue(Files.isDirectory(cluster.resolve("node-2/data")), "its data stays where its restart finds it");
            assertEquals(List.of(1), backend.brokers(), "a stopped broker is not one of the brokers");
        }
    }

    @Test
    void addBroker_noClusterRunning_failsWithTheScriptsReason() throws Exception {
        Path empty = dir.resolve("empty");
        try (LocalBackend backend = backend(empty)) {
            assertEquals(List.of(), backend.brokers());
            assertEquals(Set.of(), backend.protectedBrokers());
            assertEquals(-1, backend.removalCandidate());
            IOException e = assertThrows(IOException.class, backend::addBroker);
            assertTrue(e.getMessage().contains("no node of the cluster"), e.getMessage());
            IOException missing = assertThrows(IOException.class, () -> backend.removeBroker(7));
            assertTrue(missing.getMessage().contains("no node 7"), missing.getMessage());
        }
    }

    private static void awaitBrokers(Admin admin, Set<Integer> ids) throws Exception {
        await("describeCluster lists brokers " + ids, () -> {
            try {
                Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                return nodes.stream().map(Node::id).collect(Collectors.toSet()).equals(ids);
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static Set<Integer> leaders(Admin admin, String topic) {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic);
            Set<Integer> ids = new HashSet<>();
            for (TopicPartitionInfo p : d.partitions()) {
                ids.add(p.leader() == null ? -1 : p.leader().id());
            }
            return ids;
        } catch (Exception e) {
            return Set.of();
        }
    }

    /** Polls {@code condition} for at most 60 s. */
    private static void await(String what, Supplier<Boolean> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.get()) {
            assertTrue(System.nanoTime() < deadline, "not within 60 s: " + what);
            Thread.sleep(200);
        }
    }

    /** Writes values {@code from .. from + records - 1}, round robin over the partitions, each acknowledged. */
    private static void produce(String bootstrap, String topic, int partitions, int from, int records)
            throws Exception {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int i = from; i < from + records; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, Integer.toString(i)))
                        .get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Reads the topic from the beginning until {@code records} distinct values have arrived (60 s at most). */
    private static Set<String> consume(String bootstrap, String topic, int partitions, int records) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Set<String> values = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < records) {
                assertTrue(System.nanoTime() < deadline, "read " + values.size() + " of " + records + " in 60 s");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    /** Runs {@code cluster.sh <args> --dir <cluster>}; returns its last stdout line, failing on a non-zero exit. */
    private String script(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--dir", cluster.toString()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(environment());
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("cluster.sh " + String.join(" ", args) + " did not finish; stderr: "
                    + Files.readString(err, StandardCharsets.UTF_8));
        }
        assertEquals(0, p.exitValue(), "cluster.sh " + String.join(" ", args) + ": "
                + Files.readString(err, StandardCharsets.UTF_8));
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
}
