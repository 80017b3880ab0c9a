package io.aloft.autoscaler.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.policy.PolicyLoader;
import io.aloft.autoscaler.scaling.Decision;
import io.aloft.autoscaler.service.Autoscaler;
import io.aloft.autoscaler.service.AutoscalerMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end-to-end scenario with the {@code local} backend: a 2-broker cluster
 * ({@code scripts/cluster.sh}, brokers as real processes) under a producer load that steps up 5x;
 * the autoscaler (its real policy, collector, balancer, executor and backend, in this JVM) adds a
 * broker, the balancer moves partitions onto it until every broker's share of the ingress is inside
 * the band; the load drops back, the autoscaler drains the new broker by reassignment and removes
 * it. The idempotent {@code acks=all} producer loses nothing and no send fails: every acknowledged
 * record is read back once.
 *
 * <p>Prints one {@code AUTOSCALE} line with the times from the step to the scale-out decision, to
 * the new broker serving and to the balanced state, from the drop to the removal, and the
 * producer's p99 per phase. {@code -Daloft.autoscale.bench=true} runs the benchmark's larger load
 * ({@code scripts/bench-autoscale.sh}); the default is sized for the test suite.
 */
class AutoscalerStepLoadTest {
    private static final Logger log = LoggerFactory.getLogger(AutoscalerStepLoadTest.class);
    private static final Path SCRIPT = Path.of("..", "scripts", "cluster.sh").toAbsolutePath().normalize();
    private static final boolean BENCH = Boolean.getBoolean("aloft.autoscale.bench");
    private static final String TOPIC = "load";
    private static final int PARTITIONS = 12;
    private static final int RECORD_BYTES = 1000;
    /** Offered load before the step and after the drop, bytes/s (the step is 5x). */
    private static final double LOW = BENCH ? 4e6 : 300e3;
    /** Per-broker ingress target: the low load needs fewer than 2 brokers, the high one more than 3. */
    private static final double TARGET = LOW * 5 / 3.75;

    @TempDir
    Path dir;
    private Path cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            script("stop", "--dir", cluster.toString());
        }
    }

    @Test
    void stepUp_addsAndFillsABroker_stepDown_drainsAndRemovesIt() throws Exception {
        cluster = dir.resolve("cluster");
        String bootstrap = script("start", "2", "--dir", cluster.toString(), "--no-build");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            Path policy = dir.resolve("policy.yaml");
            Files.writeString(policy, policy(cluster));
            AtomicBoolean stop = new AtomicBoolean();
            try (AutoscalerMetrics metrics = new AutoscalerMetrics();
                    Autoscaler autoscaler = Autoscaler.create(PolicyLoader.load(policy), bootstrap, Map.of(), metrics,
                            false, line -> log.info("{}", line),
                            Map.of("ALOFT_CLASSPATH", System.getProperty("java.class.path")));
                    StepLoad load = new StepLoad(bootstrap, TOPIC, PARTITIONS, RECORD_BYTES, LOW)) {
                Thread loop = new Thread(() -> {
                    try {
                        autoscaler.run(stop::get);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "autoscaler");
                loop.start();
                try {
                    // Low load: two brokers are what the policy wants (its minimum), nothing changes.
                    await("three evaluations at the low load", Duration.ofSeconds(60),
                            () -> metrics.decisions(Decision.Action.NONE) >= 3);
                    assertEquals(2, brokers(admin).size(), "no scaling at the low load");
                    Histogram before = load.latencySinceLast();

                    long step = System.nanoTime();
                    load.rate(LOW * 5);
                    await("a scale-out decision", Duration.ofSeconds(60),
                            () -> metrics.decisions(Decision.Action.SCALE_OUT) >= 1);
                    long decided = System.nanoTime();
                    await("broker 3 serving", Duration.ofSeconds(120), () -> brokers(admin).contains(3));
                    long serving = System.nanoTime();
                    await("the load spread over three brokers", Duration.ofSeconds(120),
                            () -> balanced(admin, 3));
                    long balanced = System.nanoTime();
                    Histogram high = load.latencySinceLast();

                    long drop = System.nanoTime();
                    load.rate(LOW);
                    await("broker 3 drained and removed", Duration.ofSeconds(180),
                            () -> !brokers(admin).contains(3));
                    long removed = System.nanoTime();
                    assertTrue(leaders(admin).values().stream().noneMatch(b -> b == 3), "nothing left on broker 3");
                    Histogram after = load.latencySinceLast();
                    System.out.printf("AUTOSCALE step %.1f -> %.1f MB/s: scale-out decision +%.1f s, broker serving"
                                    + " +%.1f s, balanced +%.1f s; drop: removed +%.1f s; producer p99 %.0f / %.0f /"
                                    + " %.0f ms (before / step to balanced / after the drop)%n",
                            LOW / 1e6, LOW * 5 / 1e6, seconds(decided - step), seconds(serving - step),
                            seconds(balanced - step), seconds(removed - drop),
                            before.getValueAtPercentile(99) / 1000.0, high.getValueAtPercentile(99) / 1000.0,
                            after.getValueAtPercentile(99) / 1000.0);
                } finally {
                    stop.set(true);
                    loop.join(120_000);
                }
                // `plan` prints what draining broker 2 would move, and moves nothing.
                Map<Integer, Integer> placed = leaders(admin);
                long onBroker2 = placed.values().stream().filter(b -> b == 2).count();
                var printed = new java.io.ByteArrayOutputStream();
                var ps = new java.io.PrintStream(printed, true, StandardCharsets.UTF_8);
                assertEquals(0, io.aloft.autoscaler.AutoscalerMainAccess.run(new String[] {"plan", "--policy",
                        policy.toString(), "--bootstrap", bootstrap, "--drain", "2"}, ps, ps), printed::toString);
                String plan = printed.toString(StandardCharsets.UTF_8);
                assertTrue(plan.contains("drain: brokers [2] hold"), plan);
                assertTrue(plan.lines().filter(l -> l.contains("from broker 2 to broker 1")).count() >= onBroker2, plan);
                assertEquals(placed, leaders(admin), "plan changed nothing");

                // `drain` moves them all to broker 1 and leaves broker 2 running; `remove` refuses the voter.
                assertEquals(0, io.aloft.autoscaler.AutoscalerMainAccess.run(new String[] {"drain", "--broker", "2",
                        "--policy", policy.toString(), "--bootstrap", bootstrap}, ps, ps), printed::toString);
                Map<Integer, Integer> drained = leaders(admin);
                assertTrue(drained.values().stream().allMatch(b -> b == 1), drained::toString);
                assertEquals(List.of(1, 2), brokers(admin));
                assertEquals(1, io.aloft.autoscaler.AutoscalerMainAccess.run(new String[] {"remove", "--broker", "1",
                        "--policy", policy.toString(), "--bootstrap", bootstrap}, ps, ps));
                assertTrue(printed.toString(StandardCharsets.UTF_8).contains("cannot remove broker 1"), printed::toString);

                load.close();
                assertTrue(load.failures().isEmpty(), "failed sends: " + load.failures());
                assertEquals(load.sent(), load.acked(), "every send acknowledged");
                assertEquals(load.acked(), readAll(bootstrap), "every acknowledged record read back once");
            }
        }
    }

    /** Broker 1..n each lead between 3 and 5 of the 12 equally loaded partitions: ingress within +-25 %. */
    private static boolean balanced(Admin admin, int brokers) throws Exception {
        Map<Integer, Integer> counts = new TreeMap<>();
        leaders(admin).values().forEach(b -> counts.merge(b, 1, Integer::sum));
        int share = PARTITIONS / brokers;
        return counts.size() == brokers && counts.values().stream().allMatch(c -> Math.abs(c - share) <= 1);
    }

    private static Map<Integer, Integer> leaders(Admin admin) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC);
        Map<Integer, Integer> leaders = new TreeMap<>();
        d.partitions().forEach(p -> leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id()));
        return leaders;
    }

    private static List<Integer> brokers(Admin admin) throws Exception {
        return admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(n -> n.id()).sorted().toList();
    }

    private static long readAll(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                tps.add(new TopicPartition(TOPIC, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            long read = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (read < total && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            // Offsets start at 0 and nothing is deleted: the end offsets count what was appended.
            assertEquals(total, read, "read up to the end offsets");
            return total;
        }
    }

    private String policy(Path clusterDir) {
        return """
                interval: 3s
                minBrokers: 2
                maxBrokers: 3
                balancing:
                  networkBandPercent: 25
                  trivialBrokerBytesPerSec: %d
                  minMoveBytesPerSec: %d
                execution:
                  maxConcurrentMovesPerBroker: 4
                  pauseBetweenBatches: 1s
                scaling:
                  targetTracking:
                    - metric: bytesInPerBroker
                      target: %d
                  cooldown:
                    scaleOut: 5s
                    scaleIn: 10s
                  scaleIn:
                    stabilizationWindow: 10s
                backend:
                  type: local
                  clusterDir: %s
                  script: %s
                """.formatted((long) (LOW / 4), (long) (LOW / PARTITIONS), (long) TARGET, clusterDir, SCRIPT);
    }

    private static void await(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within " + timeout);
            }
            Thread.sleep(200);
        }
    }

    @FunctionalInterface
    private interface Check {
        boolean holds() throws Exception;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** Runs scripts/cluster.sh; returns its last stdout line (the bootstrap for start). */
    private static String script(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(false);
        pb.environment().put("ALOFT_CLASSPATH", System.getProperty("java.class.path"));
        Process p = pb.start();
        p.getOutputStream().close();
        var err = new StringBuilder();
        Thread drain = new Thread(() -> {
            try {
                err.append(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        });
        drain.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(200, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("cluster.sh " + String.join(" ", args) + " did not finish");
        }
        drain.join();
        if (p.exitValue() != 0) {
            throw new AssertionError("cluster.sh " + String.join(" ", args) + " failed: " + err);
        }
        String[] lines = out.strip().split("\n");
        return lines[lines.length - 1];
    }
}
