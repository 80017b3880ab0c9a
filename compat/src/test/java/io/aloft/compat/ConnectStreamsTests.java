package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Kafka Connect and Kafka Streams against one broker, each in child JVMs, surviving restarts on
 * what they stored in the broker's compacted topics. {@link ApacheKafkaConnectStreamsTest} proves
 * both scenarios against Apache Kafka 4.3.1; {@link AloftConnectStreamsTest} runs them against Aloft.
 *
 * <p>Connect: a distributed worker (its config, offset and status topics must come out compacted)
 * runs a file source → topic → file sink pipeline; the worker is stopped, lines are appended, the
 * broker and the worker are restarted, and the sink file must hold every line exactly once, in order,
 * with the stored offsets at the ends. Streams: a counting application (a KTable whose changelog
 * Streams creates compacted) counts keyed records, is stopped, loses its local state, and on its
 * restart must restore the counts from the changelog so that the new records bring them to exactly
 * the expected totals.
 *
 * <p>A failure quotes the children's output and the broker's log lines written during the scenario;
 * every child has a hard time limit. Confined to JUnit's test thread; the broker is per instance
 * (one instance per class), started by the first scenario that needs it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConnectStreamsTests {
    /** Hard limit on each child's life: one worker or application incarnation takes 10-20 s on a busy machine. */
    static final Duration CHILD_LIMIT = Duration.ofSeconds(90);
    /** How long one step (a worker starting, a pipeline draining, counts converging) may take. */
    static final Duration STEP = Duration.ofSeconds(45);
    static final int LINES = 200;
    static final int PARTITIONS = 3;
    private static final int BROKER_LOG_LINES = 60;
    private static final Pattern SOURCE_POSITION = Pattern.compile("\"position\"\\s*:\\s*(\\d+)");
    private static final Pattern SINK_OFFSET = Pattern.compile("\"kafka_offset\"\\s*:\\s*(\\d+)");

    private final CompatLayout layout = CompatLayout.fromSystemProperties();
    private ChildBroker broker;

    /** A broker not yet started, with its data under {@code scratch}. */
    abstract ChildBroker newBroker(Path scratch) throws IOException;

    /** Short name for directories and the broker's log: "kafka", "aloft". */
    abstract String brokerName();

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.stop();
        }
    }

    private ChildBroker broker() throws Exception {
        if (broker == null) {
            broker = newBroker(layout.workDir().resolve("brokers"));
            broker.start();
        }
        return broker;
    }

    // ---- Kafka Connect --------------------------------------------------------------------------

    @Test
    void connect_fileSourceToFileSink_resumesAfterWorkerAndBrokerRestartWithNothingLostOrRepeated()
            throws Exception {
        String cluster = "compat-connect-" + brokerName();
        String topic = cluster + "-lines";
        Path dir = fresh(layout.workDir().resolve(brokerName()).resolve("connect"));
        Path source = dir.resolve("source.txt");
        Path sink = dir.resolve("sink.txt");
        List<String> lines = IntStream.rangeClosed(1, 2 * LINES).mapToObj(i -> String.format("line %05d", i)).toList();
        List<Supplier<String>> children = new ArrayList<>();
        scenario(children, () -> {
            try (Topics topics = new Topics(broker.bootstrap())) {
                topics.create(topic, 1); // one partition: the sink must see the lines in order
                Files.write(source, lines.subList(0, LINES), StandardCharsets.UTF_8);
                Map<String, String> sourceConfig = new LinkedHashMap<>();
                sourceConfig.put("connector.class", ConnectWorker.SOURCE_CONNECTOR);
                sourceConfig.put("tasks.max", "1");
                sourceConfig.put("file", source.toString());
                sourceConfig.put("topic", topic);
                Map<String, String> sinkConfig = new LinkedHashMap<>();
                sinkConfig.put("connector.class", ConnectWorker.SINK_CONNECTOR);
                sinkConfig.put("tasks.max", "1");
                sinkConfig.put("file", sink.toString());
                sinkConfig.put("topics", topic);

                try (ConnectWorker worker = startWorker(cluster, "connect-worker-1", dir, children)) {
                    worker.putConnector("file-source", sourceConfig, STEP);
                    worker.putConnector("file-sink", sinkConfig, STEP);
                    worker.awaitRunning("file-source", STEP);
                    worker.awaitRunning("file-sink", STEP);
                    awaitSinkHolds(sink, lines.subList(0, LINES));
                    Map<String, String> policies = topics.cleanupPolicies(ConnectWorker.internalTopics(cluster));
                    for (String internal : ConnectWorker.internalTopics(cluster)) {
                        assertEquals("compact", policies.get(internal), "cleanup.policy of Connect's internal topic "
                                + internal + " (all: " + policies + ")");
                    }
                    worker.stop();
                }

                Files.write(source, lines.subList(LINES, lines.size()), StandardCharsets.UTF_8,
                        StandardOpenOption.APPEND);
                broker.restart();
            }
            try (Topics topics = new Topics(broker.bootstrap());
                 ConnectWorker worker = startWorker(cluster, "connect-worker-2", dir, children)) {
                // Not created again: the restarted worker finds both connectors in its config topic.
                worker.awaitRunning("file-source", STEP);
                worker.awaitRunning("file-sink", STEP);
                awaitSinkHolds(sink, lines);
                assertEquals(Map.of(0, (long) lines.size()), topics.endOffsets(topic),
                        "records in " + topic + ": the source sent some lines again");
                long sourceBytes = Files.size(source);
                String[] seen = {"nothing yet"};
                Await.until("the stored offsets reach the ends: source position " + sourceBytes + ", sink offset "
                        + lines.size(), STEP, () -> {
                            String sourceOffsets = worker.offsets("file-source");
                            String sinkOffsets = worker.offsets("file-sink");
                            seen[0] = sourceOffsets + " " + sinkOffsets;
                            return number(SOURCE_POSITION, sourceOffsets) == sourceBytes
                                    && number(SINK_OFFSET, sinkOffsets) == lines.size() ? true : null;
                        }, () -> seen[0]);
                worker.stop();
            }
        });
    }

    private ConnectWorker startWorker(String cluster, String name, Path dir, List<Supplier<String>> children)
            throws IOException {
        ConnectWorker worker = ConnectWorker.start(name, ApacheKafkaServer.findLibsDir(), layout.connectPluginsDir(),
                broker.bootstrap(), cluster, cluster, dir, CHILD_LIMIT);
        children.add(worker::describe);
        return worker;
    }

    /** Waits until the sink file holds {@code expected} lines, then checks they are exactly those, in order. */
    private static void awaitSinkHolds(Path sink, List<String> expected) throws InterruptedException {
        String last = expected.get(expected.size() - 1);
        int[] seen = {0};
        List<String> written = Await.until("the sink file has " + expected.size() + " lines", STEP, () -> {
            List<String> now = completeLines(sink);
            seen[0] = now.size();
            return now.size() >= expected.size() || now.contains(last) ? now : null;
        }, () -> seen[0] + " lines in " + sink);
        if (!written.equals(expected)) {
            fail("the sink file " + sink + " should hold lines 1 to " + expected.size() + " once each, in order; it has "
                    + written.size() + " lines" + firstDifference(expected, written));
        }
    }

    /** The lines of a file that end with a newline (the sink may be mid-write). */
    private static List<String> completeLines(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        return end < 0 ? List.of() : text.substring(0, end).lines().toList();
    }

    private static String firstDifference(List<String> expected, List<String> actual) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                return "; line " + (i + 1) + " is '" + actual.get(i) + "', expected '" + expected.get(i) + "'";
            }
        }
        return "";
    }

    private static long number(Pattern p, String json) {
        Matcher m = p.matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    // ---- Kafka Streams --------------------------------------------------------------------------

    @Test
    void streams_countByKey_restoresFromChangelogAfterLocalStateIsDeleted() throws Exception {
        String app = "compat-streams-" + brokerName();
        String input = app + "-input";
        String output = app + "-counts";
        String changelog = app + "-" + "counts" + "-changelog";
        Path dir = fresh(layout.workDir().resolve(brokerName()).resolve("streams"));
        Path stateDir = dir.resolve("state");
        List<Map.Entry<String, String>> first = records(0, 300, 10);
        List<Map.Entry<String, String>> second = records(300, 150, 15);
        Map<String, Long> afterFirst = counts(first, new TreeMap<>());
        Map<String, Long> afterBoth = counts(second, counts(first, new TreeMap<>()));
        List<Supplier<String>> children = new ArrayList<>();
        scenario(children, () -> {
            try (Topics topics = new Topics(broker.bootstrap())) {
                topics.create(input, PARTITIONS);
                topics.create(output, PARTITIONS);
                topics.produce(input, first);
                try (StreamsApp instance = startApp(app, "streams-app-1", input, output, stateDir, dir, children)) {
                    instance.awaitState("RUNNING", STEP);
                    awaitCounts(instance, topics, output, afterFirst);
                    assertEquals(Map.of(changelog, "compact"), topics.cleanupPolicies(List.of(changelog)),
                            "cleanup.policy of the store's changelog topic, which Streams created");
                    instance.stop();
                }

                deleteRecursively(stateDir);
                topics.produce(input, second);
                try (StreamsApp instance = startApp(app, "streams-app-2", input, output, stateDir, dir, children)) {
                    instance.awaitState("RUNNING", STEP);
                    awaitCounts(instance, topics, output, afterBoth);
                    long restored = instance.restored("counts").values().stream().mapToLong(Long::longValue).sum();
                    assertTrue(restored >= afterFirst.size(), "the store should have been restored from its "
                            + "changelog (at least one record per key counted before): " + instance.restored("counts"));
                    instance.stop();
                }
            }
        });
    }

    /**
     * The counting application with {@code processing.guarantee=exactly_once_v2} (transactions:
     * the counts, the changelog and the consumed offsets committed together through
     * {@code sendOffsetsToTransaction}), stopped and started again between two batches of input:
     * the committed output holds every count of every key exactly once, 1 to the key's number of
     * input records, with nothing repeated or skipped.
     */
    @Test
    void streams_exactlyOnceV2_committedOutputHoldsEachCountOnce_acrossARestart() throws Exception {
        String app = "compat-eos-" + brokerName();
        String input = app + "-input";
        String output = app + "-counts";
        Path dir = fresh(layout.workDir().resolve(brokerName()).resolve("streams-eos"));
        Path stateDir = dir.resolve("state");
        List<Map.Entry<String, String>> first = records(0, 200, 8);
        List<Map.Entry<String, String>> second = records(200, 100, 8);
        Map<String, Long> afterFirst = counts(first, new TreeMap<>());
        Map<String, Long> afterBoth = counts(second, counts(first, new TreeMap<>()));
        List<Supplier<String>> children = new ArrayList<>();
        scenario(children, () -> {
            try (Topics topics = new Topics(broker.bootstrap())) {
                topics.create(input, PARTITIONS);
                topics.create(output, PARTITIONS);
                topics.produce(input, first);
                try (StreamsApp instance = startApp(app, "streams-eos-1", input, output, stateDir, dir, children,
                        EXACTLY_ONCE_V2)) {
                    instance.awaitState("RUNNING", STEP);
                    awaitCounts(instance, topics, output, afterFirst);
                    instance.stop();
                }
                topics.produce(input, second);
                try (StreamsApp instance = startApp(app, "streams-eos-2", input, output, stateDir, dir, children,
                        EXACTLY_ONCE_V2)) {
                    instance.awaitState("RUNNING", STEP);
                    awaitCounts(instance, topics, output, afterBoth);
                    instance.stop();
                }
                Map<String, List<Long>> expected = new TreeMap<>();
                afterBoth.forEach((key, n) -> expected.put(key, LongStream.rangeClosed(1, n).boxed().toList()));
                Map<String, List<Long>> committed = new TreeMap<>(topics.committedLongValues(output));
                assertEquals(expected, committed, "the committed counts of " + output);
                // Streams' transactional producers (ids from the application id): it did run exactly once.
                List<String> ids = topics.transactionalIds();
                assertTrue(ids.stream().anyMatch(id -> id.startsWith(app)), "transactional ids: " + ids);
            }
        });
    }

    private static final String EXACTLY_ONCE_V2 = "exactly_once_v2";

    private StreamsApp startApp(String app, String name, String input, String output, Path stateDir, Path dir,
            List<Supplier<String>> children) throws IOException {
        return startApp(app, name, input, output, stateDir, dir, children, null);
    }

    private StreamsApp startApp(String app, String name, String input, String output, Path stateDir, Path dir,
            List<Supplier<String>> children, String processingGuarantee) throws IOException {
        StreamsApp instance = StreamsApp.start(layout, name, broker.bootstrap(), app, input, output, stateDir, dir,
                CHILD_LIMIT, processingGuarantee);
        children.add(instance::describe);
        return instance;
    }

    /** Waits until both the store (interactive query) and the output topic's latest values equal {@code expected}. */
    private static void awaitCounts(StreamsApp instance, Topics topics, String output, Map<String, Long> expected)
            throws InterruptedException {
        Object[] seen = {"nothing yet"};
        Await.until("the counts converge to " + expected, STEP, () -> {
            Map<String, Long> store = instance.counts(STEP).orElse(null);
            Map<String, Long> topic = new TreeMap<>(topics.latestLongValues(output));
            seen[0] = "store " + store + ", " + output + " " + topic;
            return expected.equals(store) && expected.equals(topic) ? true : null;
        }, () -> String.valueOf(seen[0]));
    }

    /** {@code count} records numbered from {@code from}, keyed round-robin over {@code keys} keys. */
    private static List<Map.Entry<String, String>> records(int from, int count, int keys) {
        return IntStream.range(from, from + count).mapToObj(i -> Map.entry("key-" + (i % keys), "value-" + i))
                .toList();
    }

    private static Map<String, Long> counts(List<Map.Entry<String, String>> records, Map<String, Long> into) {
        records.forEach(r -> into.merge(r.getKey(), 1L, Long::sum));
        return into;
    }

    // ---- running a scenario ---------------------------------------------------------------------

    /** A scenario's steps, on the test thread. */
    @FunctionalInterface
    interface Steps {
        void run() throws Exception;
    }

    /**
     * Runs {@code steps}; a failure is reported with the output of every child it started (listed in
     * {@code children} as they start) and the broker's log lines written meanwhile.
     */
    private void scenario(List<Supplier<String>> children, Steps steps) throws Exception {
        // A broker that fails to start says why itself (its log's tail), before any child runs.
        BrokerLog brokerLog = BrokerLog.mark(broker(), brokerName());
        try {
            steps.run();
        } catch (Exception | AssertionError e) {
            StringBuilder report = new StringBuilder("against ").append(broker.description()).append(":\n").append(e);
            for (Supplier<String> child : children) {
                report.append("\n\n").append(child.get());
            }
            report.append("\n\nbroker log during the scenario (last ").append(BROKER_LOG_LINES).append(" lines):\n")
                    .append(brokerLog.since(BROKER_LOG_LINES));
            throw new AssertionError(report.toString(), e);
        }
    }

    private static Path fresh(Path dir) throws IOException {
        deleteRecursively(dir);
        return Files.createDirectories(dir);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
