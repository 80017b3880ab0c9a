package io.aloft.omb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.runner.RunResult;
import io.aloft.omb.runner.RunnerOptions;
import io.aloft.omb.runner.WorkloadRunner;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import io.aloft.servers.ApacheKafkaServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped share-group driver end to end: a few seconds against Apache Kafka 4.3.1 (a child
 * process; it serves share groups by default), two share consumers on one partition releasing 1%
 * of the records; and against an Aloft broker that does not serve share groups, which must stop
 * the run before anything is created, saying why. Checks what was measured, never how fast.
 */
@Timeout(240)
class ShareGroupsSmokeRunTest {
    @TempDir
    Path dir;

    @Test
    void run_kafka_everyRecordAcceptedOnceAndEveryReleaseRedelivered() throws Exception {
        try (ApacheKafkaServer kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, dir,
                Map.of(), Duration.ofSeconds(90))) {
            kafka.start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            RunResult r = new WorkloadRunner(small(2), shipped(), kafka.bootstrap(), new PrintStream(out, true,
                    StandardCharsets.UTF_8), RunnerOptions.DEFAULTS.withReportInterval(Duration.ofSeconds(1))).run();
            String printed = out.toString(StandardCharsets.UTF_8);
            System.out.println(printed);
            System.out.println(r.toTable());

            assertTrue(printed.contains("share groups: explicit acknowledgement, release fraction 0.01"), printed);
            double published = r.figure("runPublishedMsgs");
            assertTrue(published > 200, published + " published");
            assertEquals(published, r.figure("runConsumedMsgs"), "every record accepted exactly once");
            // 1% by offset: offsets 99, 199, ... below the number published.
            assertEquals(Math.floor(published / 100), r.figure("runReleasedMsgs"));
            assertEquals(r.figure("runReleasedMsgs"), r.figure("runRedeliveredMsgs"), "each release came back");
            assertEquals(0.0, r.figure("releasedNotRedeliveredAtEnd"));
            assertEquals(0.0, r.figure("unreleasedRedeliveries"), "no lock timed out, no member left mid-run");
            assertTrue(r.figure(RunResult.REDELIVERY_LATENCY_P99_MS) >= 0, r.toTable());
            assertTrue(r.figure(RunResult.E2E_LATENCY_P99_MS) >= 0, r.toTable());
            assertEquals(2.0, r.figure("consumerClients"));
        }
    }

    @Test
    void run_brokerWithoutShareGroups_failsNamingShareGroupHeartbeatBeforeCreatingTopics() throws Exception {
        try (InProcessBroker aloft = new InProcessBroker(dir.resolve("aloft"), Map.of("aloft.share.version", "0"))) {
            WorkloadRunner runner = new WorkloadRunner(small(1), shipped(), aloft.bootstrap(), System.out);
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, runner::run);
            assertTrue(e.getMessage().contains("does not serve share groups")
                    && e.getMessage().contains("ShareGroupHeartbeat (76)"), e.getMessage());
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", aloft.bootstrap()))) {
                assertTrue(admin.listTopics().names().get().stream().noneMatch(t -> t.startsWith("omb-")),
                        "no topic created");
            }
        }
    }

    /** The shipped workload's shape (1 partition, 1 KiB), small: 1,000 msg/s for a few seconds. */
    private static Workload small(int consumers) {
        Workload w = Workload.load(Path.of("workloads/share-groups.yaml"));
        return new Workload(w.name(), 1, 1, w.messageSize(), null, 1, consumers, 1, 1000, 0, 1, 0.08, 0.02,
                w.keyDistributor());
    }

    private static DriverConfig shipped() {
        return DriverConfig.load(Path.of("drivers/kafka-share.yaml"));
    }
}
