package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.controller.TestQuorum;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.query.Queries;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process that hits a critical failure stops whole: it exits with status
 * {@value FatalFailureHandler#EXIT_STATUS}, its log names the cause, its heartbeats stop so the
 * controller fences it, and nothing it acknowledged is lost.
 *
 * <p>The broker runs as a child JVM ({@link FaultyBrokerChild}, i.e. {@link BrokerMain} with the
 * real exit) against a controller voter in this JVM, so the controller outlives the broker and
 * its view can be asserted. Faults are injected at seams, on cue from this test: the WAL's device
 * is a {@link io.aloft.wal.device.FaultyFileChannel} whose writes start failing with EIO (a real
 * device cannot be made to fail mid-run here without root), and a task on the broker's own
 * scheduler throws. The rest is real: the WAL, stream store, Kafka clients and the controller.
 * The broker's output goes to {@code target/broker-critical-failure/}.
 */
class BrokerCriticalFailureTest {
    private static final int BROKER_ID = 7;
    private static final String TOPIC = "failing";
    private static final int PARTITIONS = 2;
    /** The controller's session timeout: how soon it fences a broker whose heartbeats stopped. */
    private static final long SESSION_TIMEOUT_MS = 2_000;
    private static final long HEARTBEAT_INTERVAL_MS = 250;

    @TempDir
    Path dir;

    private TestQuorum quorum;
    private ControllerClient controller;
    private Path config;
    private Path logFile;
    private String bootstrap;
    private Process broker;

    @BeforeEach
    void setUp(org.junit.jupiter.api.TestInfo test) throws Exception {
        quorum = new TestQuorum(dir.resolve("quorum"), 1,
                b -> b.sessionTimeoutMs(SESSION_TIMEOUT_MS).heartbeatIntervalMs(HEARTBEAT_INTERVAL_MS));
        quorum.awaitLeader();
        controller = quorum.newClient();
        bootstrap = "127.0.0.1:" + TestQuorum.freePort();
        config = dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "node.id=" + BROKER_ID,
                "listeners=PLAINTEXT://" + bootstrap,
                "controller.quorum.voters=" + quorum.voters(),
                "broker.heartbeat.interval.ms=" + HEARTBEAT_INTERVAL_MS,
                "aloft.data.dir=" + dir.resolve("data"),
                "offsets.topic.num.partitions=1",
                "wal.capacity.bytes=" + (64L << 20),
                "s3.log.cache.size.bytes=" + (16L << 20),
                "s3.wal.upload.threshold.bytes=" + (4L << 20),
                "s3.block.cache.size.bytes=" + (16L << 20),
                "auto.create.topics.enable=false", ""));
        Path evidence = Files.createDirectories(
                Path.of(System.getProperty("aloft.test.logdir", "target"), "broker-critical-failure"));
        logFile = evidence.resolve(test.getTestMethod().orElseThrow().getName() + ".log");
        Files.deleteIfExists(logFile);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (broker != null) {
            broker.destroyForcibly(); // whatever happened, the broker does not outlive the test
            broker.waitFor(30, TimeUnit.SECONDS);
        }
        if (controller != null) {
            controller.close();
        }
        if (quorum != null) {
            quorum.close();
        }
    }

    @Test
    void walDeviceFails_brokerExitsWithStatus3_isFenced_andEveryAcknowledgedRecordSurvives() throws Exception {
        start("wal");
        awaitBrokerState(BrokerState.ACTIVE, "after start");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        CrashLoad.Outcome outcome;
        // A short delivery timeout: records in flight at the fault fail within seconds.
        try (CrashLoad load = new CrashLoad(bootstrap, TOPIC, 3_000).start()) {
            load.awaitAcked(300, broker, "before the fault");
            cue();
            assertExitsAfterCriticalFailure();
            outcome = load.stop();
        }
        String log = Files.readString(logFile, StandardCharsets.UTF_8);
        // The WAL reports its device error, and the stream store, whose appends then fail, gives up too:
        // whichever reaches the failure handler first is the one named (the other is logged briefly).
        assertTrue(log.contains("Critical failure in WAL") || log.contains("Critical failure in stream store"),
                "the log names the component:\n" + log);
        assertTrue(log.contains("injected device fault"), "the log names the cause:\n" + log);
        assertTrue(log.contains("stopping broker " + BROKER_ID), log);
        awaitBrokerState(BrokerState.FENCED, "after the failure (no drain: fenced once its session lapsed)");

        // Restarted on the same data without the fault: what was acknowledged is all there.
        start("none");
        awaitBrokerState(BrokerState.ACTIVE, "after the restart");
        Map<TopicPartition, List<ConsumerRecord<String, String>>> records =
                BrokerCrashTest.readAll(bootstrap, TOPIC, PARTITIONS);
        System.out.println("BrokerCriticalFailureTest: " + outcome.summary());
        assertTrue(outcome.ackedCount() >= 300, outcome.summary());
        for (long seq = 0; seq < outcome.sent(); seq++) {
            if (outcome.state(seq) != CrashLoad.State.ACKED) {
                continue; // failed or refused: may be in the log or not, nobody was told it is
            }
            TopicPartition tp = new TopicPartition(TOPIC, outcome.partition(seq));
            long offset = outcome.offset(seq);
            List<ConsumerRecord<String, String>> partition = records.get(tp);
            assertTrue(offset < partition.size(), "acknowledged record " + seq + " (" + tp + " offset " + offset
                    + ") is missing after the restart; " + partition.size() + " records in " + tp);
            assertEquals(Long.toString(seq), partition.get((int) offset).value(),
                    "the record at " + tp + " offset " + offset + " is the one acknowledged there");
        }
    }

    @Test
    void exceptionOnABrokerThread_brokerExitsWithStatus3_andIsFenced() throws Exception {
        start("thread");
        awaitBrokerState(BrokerState.ACTIVE, "after start");
        cue();
        assertExitsAfterCriticalFailure();
        String log = Files.readString(logFile, StandardCharsets.UTF_8);
        assertTrue(log.contains("Critical failure in thread broker-scheduler-"), "the log names the thread:\n" + log);
        assertTrue(log.contains(FaultyBrokerChild.THREAD_FAULT_MESSAGE), "the log names the cause:\n" + log);
        awaitBrokerState(BrokerState.FENCED, "after the failure");
    }

    private void start(String fault) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start (C1 only, one compiler thread): it runs seconds on 2 shared cores.
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-Dlog4j2.configurationFile=" + childLogConfig(),
                "-Dlog4j2.shutdownHookEnabled=false",
                "-D" + FaultyBrokerChild.FAULT_PROPERTY + "=" + fault,
                "-cp", System.getProperty("java.class.path"),
                FaultyBrokerChild.class.getName(), config.toString());
        // Standard input stays a pipe: the cue goes through it, and its end halts the child.
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Files.writeString(logFile, "=== start (fault " + fault + ") " + java.time.Instant.now() + "\n",
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        broker = pb.start();
    }

    private static Path childLogConfig() {
        try {
            return Path.of(BrokerCriticalFailureTest.class.getClassLoader().getResource("broker-child-log4j2.xml")
                    .toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Tells the child to inject its fault now. */
    private void cue() throws IOException {
        OutputStream in = broker.getOutputStream();
        in.write('f');
        in.flush();
    }

    private void assertExitsAfterCriticalFailure() throws Exception {
        Process p = broker;
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the broker exits by itself after the failure; output in "
                + logFile.toAbsolutePath());
        broker = null;
        assertEquals(FatalFailureHandler.EXIT_STATUS, p.exitValue(), "exit status; output in "
                + logFile.toAbsolutePath());
    }

    /** Polls the controller until broker {@value #BROKER_ID} is in {@code state}. */
    private void awaitBrokerState(BrokerState state, String when) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        BrokerState last = null;
        while (System.nanoTime() < deadline) {
            if (broker != null && !broker.isAlive()) {
                throw new AssertionError("the broker exited (status " + broker.exitValue() + ") " + when
                        + "; output in " + logFile.toAbsolutePath());
            }
            ClusterImage image = controller.query(new Queries.DescribeCluster(), ClusterImage.class)
                    .get(30, TimeUnit.SECONDS);
            last = image.brokers().stream().filter(b -> b.brokerId() == BROKER_ID).map(BrokerInfo::state)
                    .findFirst().orElse(null);
            if (last == state) {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling another process's effect
        }
        throw new AssertionError("broker " + BROKER_ID + " is " + last + ", not " + state + ", " + when
                + "; output in " + logFile.toAbsolutePath());
    }
}
