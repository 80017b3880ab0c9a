package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/cluster.sh} as a user runs it, on the classes this build compiled
 * ({@code ALOFT_CLASSPATH}): start, status, kill, restart and stop of a 3-broker cluster with
 * embedded voters, and a cluster of dedicated controllers with 2 brokers that serves.
 */
class ClusterScriptTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "cluster.sh").toAbsolutePath().normalize();
    private static final long COMMAND_TIMEOUT_S = 150;

    @TempDir
    Path dir;
    private final List<Path> started = new ArrayList<>();

    /** Whatever a failed test left running is stopped (the script kills by the pids it recorded). */
    @AfterEach
    void stopLeftovers() throws Exception {
        for (Path d : started) {
            run(d, "stop");
        }
    }

    @Test
    void start3_statusKillRestartStop() throws Exception {
        Path cluster = dir.resolve("three");
        Result start = run(cluster, "start", "3");
        assertEquals(0, start.status, start.toString());
        String bootstrap = start.lastLine();
        assertEquals(3, bootstrap.split(",").length, "bootstrap of 3 brokers: " + bootstrap);

        Result status = run(cluster, "status");
        assertEquals(0, status.status, status.toString());
        assertEquals(3, count(status.out, "broker,controller") - count(status.out, "stopped"), status.out);

        long pid2 = Long.parseLong(Files.readString(cluster.resolve("node-2/pid")).trim());
        Result kill = run(cluster, "kill", "2");
        assertEquals(0, kill.status, kill.toString());
        assertFalse(ProcessHandle.of(pid2).map(ProcessHandle::isAlive).orElse(false), "broker 2 was killed");
        assertTrue(run(cluster, "status").out.lines().anyMatch(l -> l.startsWith("2 ") && l.endsWith("stopped")),
                "status shows broker 2 stopped");

        Result restart = run(cluster, "restart", "2");
        assertEquals(0, restart.status, restart.toString());
        assertTrue(run(cluster, "status").out.lines().anyMatch(l -> l.startsWith("2 ") && l.endsWith("running")),
                "status shows broker 2 running");
        produceAndConsume(bootstrap.split(",")[1], "after-restart", 3);

        Result stop = run(cluster, "stop");
        assertEquals(0, stop.status, stop.toString());
        assertFalse(stop.err.contains("SIGKILL"), "every node stopped on SIGTERM: " + stop.err);
        for (int id = 1; id <= 3; id++) {
            assertFalse(Files.exists(cluster.resolve("node-" + id + "/pid")), "node " + id + " has no pid file");
        }
        assertEquals(3, count(run(cluster, "status").out, "stopped"));
    }

    @Test
    void dedicatedControllers_twoBrokersServe_startAgainOnTheirData() throws Exception {
        Path cluster = dir.resolve("dedicated");
        Result start = run(cluster, "start", "2", "--controllers", "3");
        assertEquals(0, start.status, start.toString());
        String bootstrap = start.lastLine();
        assertEquals(2, bootstrap.split(",").length, "bootstrap of 2 brokers: " + bootstrap);
        String status = run(cluster, "status").out;
        assertEquals(3, count(status, " controller "), status);
        produceAndConsume(bootstrap.split(",")[0], "dedicated", 4);
        Result stop = run(cluster, "stop");
        assertEquals(0, stop.status, stop.toString());
        assertFalse(stop.err.contains("SIGKILL"), "every node stopped on SIGTERM: " + stop.err);

        // `start` on the stopped cluster runs it again on its data: every record is still there.
        Result again = run(cluster, "start");
        assertEquals(0, again.status, again.toString());
        assertEquals(bootstrap, again.lastLine(), "same brokers, same ports");
        consume(bootstrap.split(",")[1], "dedicated", 4, 40);
        assertEquals(0, run(cluster, "stop").status);
    }

    /** A topic spread over the cluster, written through and read back from one bootstrap broker. */
    private static void produceAndConsume(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        int records = partitions * 10;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, Integer.toString(i)))
                        .get(60, TimeUnit.SECONDS);
            }
        }
        consume(bootstrap, topic, partitions, records);
    }

    /** Reads the topic from the beginning: {@code records} distinct values. */
    private static void consume(String bootstrap, String topic, int partitions, int records) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        List<String> values = new ArrayList<>();
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
        assertEquals(records, values.stream().distinct().count(), "every record once: " + values);
    }

    private static int count(String text, String word) {
        return (int) text.lines().filter(l -> l.contains(word)).count();
    }

    private record Result(int status, String out, String err) {
        String lastLine() {
            List<String> lines = out.lines().toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }
    }

    /** Runs the script on cluster directory {@code clusterDir}, bounded by {@link #COMMAND_TIMEOUT_S}. */
    private Result run(Path clusterDir, String... args) throws IOException, InterruptedException {
        if (args[0].equals("start")) {
            started.add(clusterDir);
        }
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--dir", clusterDir.toString()));
        if (args[0].equals("start")) {
            command.add("--no-build");
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("ALOFT_CLASSPATH", System.getProperty("java.class.path"));
        // Small, quickly started JVMs: five of them share 2 cores.
        env.put("ALOFT_HEAP_OPTS", "-Xmx320m");
        env.put("ALOFT_GC_OPTS", "-XX:+UseSerialGC");
        env.put("ALOFT_JVM_OPTS", "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1");
        env.put("ALOFT_CLUSTER_STOP_TIMEOUT", "30");
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("cluster.sh " + String.join(" ", args) + " did not finish in "
                    + COMMAND_TIMEOUT_S + " s; stderr: " + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
