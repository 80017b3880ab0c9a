package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Kafka Streams with {@code processing.guarantee=exactly_once_v2} while its broker is SIGKILLed
 * and restarted during processing: the counting application ({@link StreamsApp}) counts keyed
 * records with a pause per record, so the kills land while transactions are open (records sent to
 * the output and changelog, offsets sent to the transaction, not yet committed). The broker is the
 * partitions' leader and the group and transaction coordinator at once. Afterwards a read_committed
 * consumer must find, for every key, the counts 1, 2, ..., n exactly once each and in order: a
 * duplicate means a record was counted twice (an aborted transaction's output visible, or offsets
 * committed without their output), a gap means an update lost.
 *
 * <p>{@link ApacheKafkaExactlyOnceStreamsTest} proves the scenario and its check against Apache
 * Kafka 4.3.1; {@link AloftExactlyOnceStreamsTest} runs it against Aloft. Kills per run: system
 * property {@code aloft.compat.eos.kills} (default 2; more for a long run).
 *
 * <p>Confined to JUnit's test thread; one broker per class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ExactlyOnceStreamsTests {
    private static final Duration CHILD_LIMIT = Duration.ofSeconds(240);
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final int KEYS = 12;
    private static final int PARTITIONS = 3;
    /** Pause per record in the application: {@link #RECORDS} take at least 6 s to count. */
    private static final long PAUSE_MS = 5;
    private static final int RECORDS = 1_200;
    private static final int KILLS = Integer.getInteger("aloft.compat.eos.kills", 2);
    private static final int BROKER_LOG_LINES = 60;

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

    @Test
    void exactlyOnceV2_countsEveryRecordOnceAcrossBrokerKills() throws Exception {
        String app = "compat-eos-" + brokerName();
        String input = app + "-input";
        String output = app + "-counts";
        Path dir = Files.createDirectories(layout.workDir().resolve(brokerName()).resolve("eos"));
        List<Map.Entry<String, String>> records = IntStream.range(0, RECORDS)
                .mapToObj(i -> Map.entry("key-" + (i % KEYS), "value-" + i)).toList();
        Map<String, Long> expected = new TreeMap<>();
        records.forEach(r -> expected.merge(r.getKey(), 1L, Long::sum));

        broker = newBroker(layout.workDir().resolve("brokers"));
        broker.start();
        BrokerLog brokerLog = BrokerLog.mark(broker, brokerName());
        StreamsApp instance = null;
        try (Topics topics = new Topics(broker.bootstrap())) {
            topics.create(input, PARTITIONS);
            topics.create(output, PARTITIONS);
            topics.produce(input, records);
            instance = StreamsApp.start(layout, "eos-app", broker.bootstrap(), app, input, output,
                    dir.resolve("state-" + System.nanoTime()), dir, CHILD_LIMIT, "exactly_once_v2", PAUSE_MS);
            instance.awaitState("RUNNING", STEP);
            for (int kill = 1; kill <= KILLS; kill++) {
                // Each kill waits for output beyond what was there before it: it lands mid-processing.
                long before = total(topics.endOffsets(output));
                long target = before + RECORDS / (KILLS + 2);
                Await.until("the application writes output past offset sum " + target + " before kill " + kill,
                        STEP, () -> total(topics.endOffsets(output)) >= target ? true : null,
                        () -> "output end offsets " + safeEnds(topics, output));
                broker.killAndRestart();
            }
            List<Map<String, List<Long>>> seen = new ArrayList<>(List.of(Map.of()));
            Await.until("read_committed output reaches the final counts " + expected, STEP.multipliedBy(2), () -> {
                seen.set(0, topics.committedLongValues(output));
                return expected.equals(lastValues(seen.get(0))) ? true : null;
            }, () -> "last committed counts " + lastValues(seen.get(0)));
            for (Map.Entry<String, Long> e : expected.entrySet()) {
                List<Long> once = LongStream.rangeClosed(1, e.getValue()).boxed().toList();
                assertEquals(once, seen.get(0).get(e.getKey()), "committed counts of " + e.getKey()
                        + ": every count from 1 to " + e.getValue() + " exactly once, in order");
            }
            // Streams' transactional producers (ids from the application id): it ran transactionally.
            List<String> ids = topics.transactionalIds();
            assertTrue(ids.stream().anyMatch(id -> id.startsWith(app)), "transactional ids: " + ids);
            instance.stop();
        } catch (Exception | AssertionError e) {
            StringBuilder report = new StringBuilder("against ").append(broker.description()).append(" with ")
                    .append(KILLS).append(" kills:\n").append(e);
            if (instance != null) {
                report.append("\n\n").append(instance.describe());
            }
            report.append("\n\nbroker log during the scenario (last ").append(BROKER_LOG_LINES).append(" lines):\n")
                    .append(brokerLog.since(BROKER_LOG_LINES));
            throw new AssertionError(report.toString(), e);
        } finally {
            if (instance != null) {
                instance.close();
            }
        }
    }

    private static long total(Map<Integer, Long> ends) {
        return ends.values().stream().mapToLong(Long::longValue).sum();
    }

    private static String safeEnds(Topics topics, String topic) {
        try {
            return topics.endOffsets(topic).toString();
        } catch (Exception e) {
            return "(unavailable: " + e + ")";
        }
    }

    private static Map<String, Long> lastValues(Map<String, List<Long>> values) {
        Map<String, Long> last = new TreeMap<>();
        values.forEach((k, v) -> last.put(k, v.get(v.size() - 1)));
        return last;
    }
}
