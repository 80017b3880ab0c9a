package io.aloft.omb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.runner.RunResult;
import io.aloft.omb.runner.RunnerOptions;
import io.aloft.omb.runner.WorkloadRunner;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end against a real Aloft broker in this JVM: the shipped smoke workload through the
 * command line, and a small backlog-mode workload through the runner. Checks what was measured
 * (counts, non-empty histograms, JSON), never how fast.
 */
@Timeout(120)
class SmokeRunTest {
    @TempDir
    static Path dir;
    private static InProcessBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = new InProcessBroker(dir.resolve("broker"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void run_smokeWorkload_publishesAndConsumesEverything() throws Exception {
        Path json = dir.resolve("out/smoke.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OmbMain.run(new String[] {"run", "--workload", "workloads/smoke.yaml",
            "--driver", "drivers/kafka-latency.yaml", "--bootstrap", broker.bootstrap(), "--json", json.toString(),
            "--duration-minutes", "0.08", "--warmup-minutes", "0.03", "--report-interval-seconds", "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        System.out.println(err.toString(StandardCharsets.UTF_8));
        assertEquals(0, code, "exit code; stderr: " + err.toString(StandardCharsets.UTF_8));
        assertTrue(printed.contains("pub lat ms p50"), "periodic progress lines were printed");
        assertTrue(printed.contains("publishLatencyP99Ms"), "the result table was printed");

        RunResult r = RunResult.fromJson(Files.readString(json));
        assertEquals("smoke", r.workload());
        for (String name : List.of(RunResult.PUBLISH_RATE_MSGS, RunResult.PUBLISH_MBPS, RunResult.CONSUME_RATE_MSGS,
                RunResult.CONSUME_MBPS, RunResult.PUBLISH_LATENCY_P50_MS, RunResult.PUBLISH_LATENCY_P99_MS,
                RunResult.PUBLISH_LATENCY_P999_MS, RunResult.PUBLISH_LATENCY_MAX_MS, RunResult.E2E_LATENCY_P50_MS,
                RunResult.E2E_LATENCY_P99_MS, RunResult.E2E_LATENCY_P999_MS, RunResult.E2E_LATENCY_MAX_MS)) {
            assertTrue(r.figure(name) >= 0, name + " is measured (histogram not empty): " + r.figure(name));
        }
        assertTrue(r.figure("publishedMsgs") > 0, "messages were published in the test phase");
        assertTrue(r.figure("consumedMsgs") > 0, "messages were consumed in the test phase");
        assertTrue(r.figure(RunResult.PUBLISH_RATE_MSGS) > 0);
        assertEquals(0.0, r.figure(RunResult.PUBLISH_ERRORS));
        assertEquals(0.0, r.figure("runPublishErrors"));
        assertEquals(r.figure("runPublishedMsgs"), r.figure("runConsumedMsgs"), "every published message consumed");
        assertEquals(0.0, r.figure("unconsumedMsgsAtEnd"));
    }

    @Test
    void run_backlogMode_buildsThenDrainsWhileProducing() throws Exception {
        // 0.004 GiB = 4.1 MiB of 1 KiB messages: about 2 s of building at 2000 msg/s.
        Workload w = Workload.parse("""
                name: backlog smoke
                topics: 1
                partitionsPerTopic: 2
                messageSize: 1024
                subscriptionsPerTopic: 1
                consumerPerSubscription: 1
                producersPerTopic: 1
                producerRate: 2000
                consumerBacklogSizeGB: 0.004
                warmupDurationMinutes: 0.02
                testDurationMinutes: 0.5
                """);
        DriverConfig driver = DriverConfig.load(Path.of("drivers/kafka-throughput.yaml"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RunResult r = new WorkloadRunner(w, driver, broker.bootstrap(), new PrintStream(out, true,
                StandardCharsets.UTF_8), RunnerOptions.DEFAULTS.withReportInterval(Duration.ofSeconds(1))).run();
        System.out.println(out.toString(StandardCharsets.UTF_8));
        System.out.println(r.toTable());

        assertEquals(1.0, r.figure("backlogBuilt"), "the backlog reached its target size");
        assertEquals(1.0, r.figure("backlogDrained"), "consumers caught up");
        assertTrue(r.figure("backlogAtDrainStartMB") >= 4.0, "backlog at drain start: " + r.figure("backlogAtDrainStartMB"));
        assertTrue(r.figure(RunResult.BACKLOG_BUILD_MBPS) > 0);
        assertTrue(r.figure(RunResult.DRAIN_MBPS) > 0);
        assertTrue(r.figure(RunResult.PUBLISH_LATENCY_P99_BEFORE_DRAIN_MS) >= 0);
        assertTrue(r.figure(RunResult.PUBLISH_LATENCY_P99_DURING_DRAIN_MS) >= 0);
        assertEquals(0.0, r.figure(RunResult.PUBLISH_ERRORS));
        assertEquals(0.0, r.figure("unconsumedMsgsAtEnd"));
        assertTrue(RunResult.fromJson(r.toJson()).figures().keySet().containsAll(List.of(RunResult.DRAIN_MBPS,
                RunResult.BACKLOG_BUILD_MBPS)));
    }
}
