package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka 4.3.1's own {@code kafka-reassign-partitions.sh} (its main class, run unchanged as a
 * child process by {@link KafkaCli}) against a {@link TestCluster}, each run bootstrapped on a
 * broker picked in turn.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class ReassignTool {
    private static final String MAIN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    private final TestCluster cluster;
    private final int brokers;
    private final KafkaCli cli;
    private final Path work;
    private int runs;

    ReassignTool(TestCluster cluster, int brokers, Path work) throws Exception {
        this.cluster = cluster;
        this.brokers = brokers;
        this.work = Files.createDirectories(work);
        this.cli = new KafkaCli(work.resolve("cli"));
    }

    KafkaCli.Result run(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrap(1 + runs++ % brokers)));
        all.addAll(List.of(args));
        return cli.run(MAIN, all.toArray(String[]::new));
    }

    /** A plan moving one partition to one broker, as {@code --execute} reads it. */
    static String plan(String topic, int partition, int broker) {
        return "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":" + partition
                + ",\"replicas\":[" + broker + "],\"log_dirs\":[\"any\"]}]}";
    }

    /**
     * {@code --execute} with {@code plan} (and {@code options}, e.g. {@code --throttle N}), then
     * {@code --verify} until it reports every partition of the plan completed (within 60 s).
     */
    void executeAndVerify(String plan, String what, String... options) throws Exception {
        Path file = Files.writeString(work.resolve("plan.json"), plan);
        List<String> args = new ArrayList<>(List.of("--execute", "--reassignment-json-file", file.toString()));
        args.addAll(List.of(options));
        KafkaCli.Result executed = run(args.toArray(String[]::new));
        assertEquals(0, executed.exitCode(), what + "\n" + executed);
        assertTrue(executed.out().contains("Successfully started partition reassignment"), what + "\n" + executed);
        if (args.contains("--throttle")) {
            assertTrue(executed.out().contains("The inter-broker throttle limit was set to"), what + "\n" + executed);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) { // each run is a JVM start of about a second: paced by itself
            KafkaCli.Result verified = run("--verify", "--reassignment-json-file", file.toString());
            boolean done = verified.exitCode() == 0 && verified.lines().stream()
                    .filter(l -> l.startsWith("Reassignment of partition ") || l.startsWith("There is no active"))
                    .allMatch(l -> l.endsWith(" is completed."));
            if (done) {
                assertTrue(verified.out().contains("is completed."), what + "\n" + verified);
                return;
            }
            assertTrue(System.nanoTime() < deadline, what + ": --verify reports completion within 60 s\n" + verified);
        }
    }
}
