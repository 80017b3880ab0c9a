package io.aloft.omb.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.runner.RunResult;
import io.aloft.servers.BenchServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The orchestration of compare, with fake brokers and a fake workload runner. */
class CompareCommandTest {
    @TempDir
    Path dir;

    /** Everything the fakes saw, in order: "start kafka", "run max kafka {...}", "stop kafka". */
    private final List<String> events = new ArrayList<>();
    /** Client properties per run, keyed "step system repeat". */
    private final Map<String, Map<String, String>> clientPropertiesSeen = new LinkedHashMap<>();
    /** Overrides per run, keyed "step system repeat". */
    private final Map<String, Map<String, String>> overridesSeen = new LinkedHashMap<>();
    /** Figures the fake runner returns, per step and system, one map per repeat (the last one repeats). */
    private final Map<String, List<Map<String, Double>>> figures = new HashMap<>();
    private final Map<String, Integer> runsPerKey = new HashMap<>();
    private String failOn;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    @BeforeEach
    void writePlan() throws IOException {
        Files.createDirectories(dir.resolve("w"));
        for (String f : List.of("w/max.yaml", "w/latency.yaml", "w/many.yaml", "w/driver.yaml")) {
            Files.writeString(dir.resolve(f), "name: " + f + "\n");
        }
        Files.writeString(dir.resolve("plan.yaml"), """
                quickOverrides:
                  testDurationMinutes: 0.5
                steps:
                  - name: max
                    workload: w/max.yaml
                    driver: w/driver.yaml
                  - name: latency
                    workload: w/latency.yaml
                    driver: w/driver.yaml
                    rateFrom: max
                    rateFraction: 0.5
                  - name: many
                    workload: w/many.yaml
                    driver: w/driver.yaml
                    relativeTo: max
                    overrides:
                      topics: 1000
                """);
    }

    private final class FakeServer implements BenchServer {
        private final SystemKind kind;
        private boolean running;

        FakeServer(SystemKind kind) {
            this.kind = kind;
        }

        @Override
        public void start() {
            events.add("start " + kind.cliName());
            running = true;
        }

        @Override
        public String bootstrap() {
            return kind.cliName() + ":9092";
        }

        @Override
        public Map<String, String> clientProperties() {
            return Map.of("security.protocol", "SSL", "ssl.truststore.location", "/" + kind.cliName());
        }

        @Override
        public String description() {
            return "fake " + kind.cliName();
        }

        @Override
        public void stop() {
            if (running) {
                events.add("stop " + kind.cliName());
                running = false;
            }
        }
    }

    private RunResult fakeRun(Path workload, Path driver, String bootstrap, Map<String, String> clientProperties,
            Map<String, String> overrides) {
        String step = workload.getFileName().toString().replace(".yaml", "");
        String system = bootstrap.substring(0, bootstrap.indexOf(':'));
        events.add("run " + step + " " + system);
        String key = step + " " + system;
        int repeat = runsPerKey.merge(key, 1, Integer::sum);
        overridesSeen.put(key + " " + repeat, overrides);
        clientPropertiesSeen.put(key + " " + repeat, clientProperties);
        if ((key + " " + repeat).equals(failOn)) {
            throw new IllegalStateException("broker fell over");
        }
        List<Map<String, Double>> perRepeat = figures.getOrDefault(key,
                List.of(Map.of("publishMBps", 1.0, "publishRateMsgs", 1000.0)));
        return new RunResult(step, perRepeat.get(Math.min(repeat, perRepeat.size()) - 1));
    }

    private int compare(String... args) {
        List<String> all = new ArrayList<>(List.of("--plan", dir.resolve("plan.yaml").toString(),
                "--out", dir.resolve("out").toString(), "--dir", dir.toString()));
        all.addAll(List.of(args));
        return CompareCommand.run(all.toArray(String[]::new), FakeServer::new, this::fakeRun,
                new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void run_threeRepeats_alternatesOrderAndStopsEachServerBeforeTheNext() {
        assertEquals(0, compare("--workloads", "max", "--repeats", "3"), err());
        assertEquals(List.of(
                "start kafka", "run max kafka", "stop kafka", "start aloft", "run max aloft", "stop aloft",
                "start aloft", "run max aloft", "stop aloft", "start kafka", "run max kafka", "stop kafka",
                "start kafka", "run max kafka", "stop kafka", "start aloft", "run max aloft", "stop aloft"), events);
    }

    @Test
    void run_medianOfRepeats_tableShowsRatioAloftOverKafka() {
        figures.put("max kafka", List.of(Map.of("publishMBps", 90.0), Map.of("publishMBps", 130.0),
                Map.of("publishMBps", 100.0)));
        figures.put("max aloft", List.of(Map.of("publishMBps", 200.0), Map.of("publishMBps", 120.0),
                Map.of("publishMBps", 110.0)));
        assertEquals(0, compare("--workloads", "max", "--repeats", "3"), err());
        assertTrue(out().contains("| figure | Kafka | Aloft | Aloft/Kafka |"), out());
        assertTrue(out().contains("| publishMBps | 100.0 | 120.0 | 1.20 |"), out());
        assertTrue(out().contains("Machine:"), out());
        assertTrue(out().contains("- Kafka: fake kafka"), out());
    }

    @Test
    void run_twoRepeats_medianIsTheMeanOfBoth() {
        figures.put("max kafka", List.of(Map.of("publishMBps", 100.0), Map.of("publishMBps", 110.0)));
        figures.put("max aloft", List.of(Map.of("publishMBps", 126.0), Map.of("publishMBps", 126.0)));
        assertEquals(0, compare("--workloads", "max"), err());
        assertTrue(out().contains("| publishMBps | 105.0 | 126.0 | 1.20 |"), out());
    }

    @Test
    void run_rateFromStep_latencyRunsAtHalfOfKafkasMedianMaximum() {
        figures.put("max kafka", List.of(Map.of("publishRateMsgs", 90_000.0), Map.of("publishRateMsgs", 110_000.0)));
        figures.put("max aloft", List.of(Map.of("publishRateMsgs", 500_000.0)));
        assertEquals(0, compare("--workloads", "max,latency"), err());
        for (String run : List.of("latency kafka 1", "latency aloft 1", "latency kafka 2", "latency aloft 2")) {
            assertEquals("50000", overridesSeen.get(run).get("producerRate"), run + ": " + overridesSeen);
        }
        assertFalse(overridesSeen.get("max kafka 1").containsKey("producerRate"));
        assertTrue(out().contains("producerRate = 0.50 x Kafka max publishRateMsgs in 'max' (100000 msg/s) = 50000"),
                out());
    }

    @Test
    void run_quickAndStepOverrides_reachTheExecutor() {
        assertEquals(0, compare("--quick", "--repeats", "1"), err());
        assertEquals(Map.of("topics", "1000", "testDurationMinutes", "0.5"), overridesSeen.get("many kafka 1"));
        assertEquals(Map.of("testDurationMinutes", "0.5"), overridesSeen.get("max aloft 1"));
    }

    /** What each broker says its clients need (its security settings) reaches the runner of that broker's run. */
    @Test
    void run_serverClientProperties_reachTheExecutorPerSystem() {
        assertEquals(0, compare("--workloads", "max", "--repeats", "1"), err());
        assertEquals(Map.of("security.protocol", "SSL", "ssl.truststore.location", "/kafka"),
                clientPropertiesSeen.get("max kafka 1"));
        assertEquals("/aloft", clientPropertiesSeen.get("max aloft 1").get("ssl.truststore.location"));
    }

    @Test
    void run_durationOptions_overrideEveryStepAfterQuick() {
        assertEquals(0, compare("--quick", "--repeats", "1", "--duration-minutes", "1.5", "--warmup-minutes", "0"),
                err());
        assertEquals(Map.of("topics", "1000", "testDurationMinutes", "1.5", "warmupDurationMinutes", "0"),
                overridesSeen.get("many kafka 1"));
    }

    @Test
    void run_relativeTo_reportsThroughputAsFractionOfTheBaseStep() {
        figures.put("max kafka", List.of(Map.of("publishMBps", 100.0, "publishRateMsgs", 1000.0)));
        figures.put("max aloft", List.of(Map.of("publishMBps", 100.0, "publishRateMsgs", 1000.0)));
        figures.put("many kafka", List.of(Map.of("publishMBps", 80.0)));
        figures.put("many aloft", List.of(Map.of("publishMBps", 90.0)));
        assertEquals(0, compare("--repeats", "1"), err());
        assertTrue(out().contains("| publishMBps/max | 0.80 | 0.90 | 1.13 |"), out());
    }

    @Test
    void run_failedRun_isReportedServerStoppedAndExitIsOne() throws IOException {
        failOn = "max aloft 1";
        assertEquals(1, compare("--workloads", "max"));
        assertTrue(out().contains("- repeat 1, aloft: java.lang.IllegalStateException: broker fell over"), out());
        assertEquals(events.stream().filter(e -> e.startsWith("start")).count(),
                events.stream().filter(e -> e.startsWith("stop")).count(), events.toString());
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(2, names.size(), names.toString());
            String json = Files.readString(dir.resolve("out").resolve(names.get(0)));
            assertTrue(json.contains("\"error\" : \"java.lang.IllegalStateException: broker fell over\""), json);
        }
    }

    @Test
    void run_kafkaFsyncAndAloftS3_addColumnsAndRatioPairs() {
        assertEquals(0, compare("--workloads", "max", "--repeats", "1", "--kafka-fsync", "--aloft-s3"), err());
        assertTrue(out().contains("| figure | Kafka | Kafka-fsync | Aloft | Aloft-S3 | Aloft/Kafka | "
                + "Aloft/Kafka-fsync | Aloft-S3/Kafka | Aloft-S3/Kafka-fsync |"), out());
        assertEquals(List.of("start kafka", "start kafka-fsync", "start aloft", "start aloft-s3"),
                events.stream().filter(e -> e.startsWith("start")).toList());
    }

    /** --consumers: each step once per count, the count as consumerPerSubscription, references follow the count. */
    @Test
    void run_consumers_runsEachStepPerCountWithItsOverride() {
        figures.put("max kafka", List.of(Map.of("publishRateMsgs", 1000.0)));
        figures.put("max aloft", List.of(Map.of("publishRateMsgs", 2000.0)));
        assertEquals(0, compare("--workloads", "max,latency", "--repeats", "1", "--consumers", "1,4"), err());
        assertEquals(List.of("run max kafka", "run max aloft", "run max kafka", "run max aloft",
                "run latency kafka", "run latency aloft", "run latency kafka", "run latency aloft"),
                events.stream().filter(e -> e.startsWith("run")).toList());
        // fakeRun keys runs by workload file, so repeat 1 is the 1-consumer step and 2 the 4-consumer one.
        assertEquals("1", overridesSeen.get("max kafka 1").get("consumerPerSubscription"));
        assertEquals("4", overridesSeen.get("max aloft 2").get("consumerPerSubscription"));
        assertEquals("500", overridesSeen.get("latency aloft 2").get("producerRate"));
        assertTrue(out().contains("## max-1c") && out().contains("## max-4c") && out().contains("## latency-4c"),
                out());
        assertTrue(out().contains("producerRate = 0.50 x Kafka max publishRateMsgs in 'max-4c'"), out());
    }

    /** The summary table: one row per count and figure measured, each system's median and the ratio. */
    @Test
    void run_consumers_summaryTableRowsPerCount() {
        figures.put("max kafka", List.of(Map.of("consumeRateMsgs", 100.0, "redeliveryLatencyP99Ms", 10.0),
                Map.of("consumeRateMsgs", 300.0, "redeliveryLatencyP99Ms", 20.0)));
        figures.put("max aloft", List.of(Map.of("consumeRateMsgs", 150.0, "redeliveryLatencyP99Ms", 5.0),
                Map.of("consumeRateMsgs", 600.0, "redeliveryLatencyP99Ms", 30.0)));
        assertEquals(0, compare("--workloads", "max", "--repeats", "1", "--consumers", "1,16"), err());
        assertTrue(out().contains("## max by consumers\n\n| consumers | figure | Kafka | Aloft | Aloft/Kafka |"),
                out());
        assertTrue(out().contains("| 1 | consumeRateMsgs | 100.0 | 150.0 | 1.50 |"), out());
        assertTrue(out().contains("| 1 | redeliveryLatencyP99Ms | 10.00 | 5.00 | 0.50 |"), out());
        assertTrue(out().contains("| 16 | consumeRateMsgs | 300.0 | 600.0 | 2.00 |"), out());
        assertTrue(out().contains("| 16 | redeliveryLatencyP99Ms | 20.00 | 30.00 | 1.50 |"), out());
        assertFalse(out().contains("| 1 | e2eLatencyP99Ms"), "figures no system measured are left out:\n" + out());
    }

    @Test
    void badArguments_exitTwoNamingTheOption() {
        assertBad("--repeats", "--repeats", "x");
        assertBad("--repeats", "--repeats", "0");
        assertBad("--heap", "--heap", "lots");
        assertBad("--systems", "--systems", "kafka");
        assertBad("--systems", "--systems", "kafka,redpanda");
        assertBad("unknown option '--fast'", "--fast");
        assertBad("--workloads", "--workloads", "nope");
        assertBad("--workloads", "--workloads", "latency");
        assertBad("--run-timeout needs a value", "--run-timeout");
        assertBad("--kafka-libs", "--kafka-libs", dir.resolve("no-such-dir").toString());
        assertBad("--all and --workloads", "--all", "--workloads", "max");
        assertBad("--duration-minutes: 'soon'", "--duration-minutes", "soon");
        assertBad("--warmup-minutes: '-1'", "--warmup-minutes", "-1");
        assertBad("--security: 'tls' is not one of [plaintext, ssl, sasl_plaintext, sasl_ssl]", "--security", "tls");
        assertBad("--security needs a value", "--security");
        assertBad("--consumers: '0' is not a positive whole number", "--consumers", "1,0");
        assertBad("--consumers: 'x' is not a positive whole number", "--consumers", "x");
        assertBad("--consumers: empty list", "--consumers", ",");
        assertTrue(events.isEmpty(), events.toString());
    }

    @Test
    void help_printsUsageAndExitsZero() {
        assertEquals(0, compare("--help"));
        assertTrue(out().startsWith("usage: aloft-omb compare"), out());
    }

    @Test
    void badPlan_exitTwoNamingPlan() throws IOException {
        Files.writeString(dir.resolve("plan.yaml"),
                "steps:\n  - name: a\n    workload: missing.yaml\n    driver: w/driver.yaml\n");
        assertEquals(2, compare());
        assertTrue(err().contains("--plan") && err().contains("missing.yaml"), err());
    }

    private void assertBad(String expected, String... args) {
        errBytes.reset();
        assertEquals(2, compare(args), String.join(" ", args));
        assertTrue(err().contains(expected), err());
    }
}
