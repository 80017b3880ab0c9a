package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker in its own JVM ({@link BrokerChild}) is SIGKILLed at random moments while its log
 * cleaner compacts a keyed topic (throttled, so a cleaning spans seconds and kills land in the
 * middle of one: reading the key map, uploading the new objects, committing, checkpointing) and an
 * idempotent {@code acks=all} producer ({@link CrashLoad}, 32 keys) keeps writing to it. After every
 * restart, and again at the end once the cleaner is done (the last restart, after the last kill,
 * lifts the throttle so that final cleaning takes seconds), the topic is read from the start and:
 * <ul>
 *   <li>nothing is lost: for every key, the newest acknowledged record, or a newer one, is there;
 *       an acknowledged record is gone only if a newer record of its key is there (compaction
 *       removes superseded records only), and one that is there sits at the offset its
 *       acknowledgement named;</li>
 *   <li>no half-compacted state shows: every read succeeds, offsets only grow, no record is there
 *       twice, and records are in send order;</li>
 *   <li>cleaning is idempotent after a restart: the final compaction leaves one record per key.</li>
 * </ul>
 *
 * <p>{@code -Daloft.compaction.crash.rounds} (default 3) sets the number of kills and
 * {@code -Daloft.compaction.crash.seed} replays a run. The broker's output goes to
 * {@code target/compaction-crash/broker-<seed>.log}, kept for evidence (its "Compacted" lines show
 * the cleanings that completed between kills).
 */
class CompactionCrashTest {
    private static final int ROUNDS = Integer.getInteger("aloft.compaction.crash.rounds", 3);
    private static final long SEED = Long.getLong("aloft.compaction.crash.seed", System.nanoTime());
    private static final String TOPIC = "compacted-crash";
    private static final int PARTITIONS = 2;
    /** The cleaner's read throttle while kills come: a cleaning of this topic takes seconds. */
    private static final int THROTTLED_BYTES_PER_SECOND = 20_000;

    @TempDir
    Path dir;

    private Path config;
    private CrashableBroker broker;
    private String bootstrap;

    @Test
    void brokerSigkilledWhileCompacting_losesNothingAndShowsNoHalfCompactedState() throws Exception {
        System.out.println("CompactionCrashTest seed=" + SEED + " rounds=" + ROUNDS);
        Random random = new Random(SEED);
        bootstrap = "127.0.0.1:" + TestQuorum.freePort();
        config = dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "node.id=1",
                "listeners=PLAINTEXT://" + bootstrap,
                "controller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort(),
                "aloft.data.dir=" + dir.resolve("data"),
                "wal.capacity.bytes=" + (64L << 20),
                "s3.log.cache.size.bytes=" + (16L << 20),
                "s3.wal.upload.threshold.bytes=" + (4L << 20),
                "s3.block.cache.size.bytes=" + (16L << 20),
                "s3.wal.upload.interval.ms=200",
                "s3.object.delete.delay.ms=1000",
                "log.cleaner.backoff.ms=100",
                // Slow enough that a cleaning of this small topic spans the kills (the last
                // incarnation, killed no more, runs unthrottled: see run()).
                "log.cleaner.io.max.bytes.per.second=" + THROTTLED_BYTES_PER_SECOND,
                "log.cleaner.io.buffer.size=4096",
                "auto.create.topics.enable=false", ""));
        Path evidence = Files.createDirectories(Path.of(System.getProperty("aloft.test.logdir", "target"),
                "compaction-crash"));
        Path logFile = evidence.resolve("broker-" + SEED + ".log");
        Files.deleteIfExists(logFile);
        broker = new CrashableBroker(config, logFile);
        try {
            run(random);
        } catch (AssertionError | Exception e) {
            throw new AssertionError("seed " + SEED + ", broker output in " + logFile.toAbsolutePath() + ": "
                    + e.getMessage(), e);
        } finally {
            broker.close();
        }
    }

    private void run(Random random) throws Exception {
        broker.start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1).configs(Map.of(
                    "cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01"))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        CrashLoad.Outcome outcome;
        try (CrashLoad load = new CrashLoad(bootstrap, TOPIC, 8000, 300).start()) {
            load.awaitAcked(1500, broker.process(), "before the first kill");
            for (int round = 0; round < ROUNDS; round++) {
                long waitMs = 1_000 + random.nextInt(3_000);
                load.awaitAcked(load.acked() + 200, broker.process(), "round " + round);
                // Let the cleaner get into a cleaning: it starts one every 100 ms while data keeps coming.
                Thread.sleep(waitMs); // a random moment, not a wait for a condition
                broker.kill();
                broker.start();
                checkStructure(BrokerCrashTest.readAll(bootstrap, TOPIC, PARTITIONS), "after kill " + round);
            }
            load.awaitAcked(load.acked() + 200, broker.process(), "after the last restart");
            outcome = load.stop();
        }
        broker.kill();
        // The last incarnation cleans unthrottled: no kill comes any more, and the throttle made the
        // final cleaning of the whole topic (440 KB, each read twice) take 45 of the test's 90 s. Its
        // result is checked the same way; only its speed changes.
        String throttled = Files.readString(config);
        String unthrottled = throttled.replace("log.cleaner.io.max.bytes.per.second=" + THROTTLED_BYTES_PER_SECOND
                + "\n", "");
        assertTrue(!unthrottled.equals(throttled), "the throttle is lifted for the last incarnation");
        Files.writeString(config, unthrottled);
        broker.start();
        Map<TopicPartition, List<ConsumerRecord<String, String>>> log = BrokerCrashTest.readAll(bootstrap, TOPIC,
                PARTITIONS);
        checkStructure(log, "after the last restart");
        checkNothingLost(outcome, log);
        // The cleaner finishes: one record per key, and still nothing lost.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (count(log) > 32) {
            assertTrue(System.nanoTime() < deadline, count(log) + " records left for 32 keys");
            Thread.sleep(500); // poll: the cleaner runs in the broker
            log = BrokerCrashTest.readAll(bootstrap, TOPIC, PARTITIONS);
        }
        checkStructure(log, "after the final compaction");
        checkNothingLost(outcome, log);
        long cleanings = Files.readAllLines(broker.logFile()).stream()
                .filter(l -> l.contains("Compacted " + TOPIC)).count();
        System.out.println("CompactionCrashTest seed=" + SEED + ": " + outcome.summary() + "; " + cleanings
                + " cleanings completed over " + ROUNDS + " kills");
    }

    private static long count(Map<TopicPartition, List<ConsumerRecord<String, String>>> log) {
        return log.values().stream().mapToLong(List::size).sum();
    }

    /** Offsets only grow, no record twice, send order, every record in its key's partition. */
    private static void checkStructure(Map<TopicPartition, List<ConsumerRecord<String, String>>> log, String when) {
        Map<Long, Long> seen = new HashMap<>();
        for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e : log.entrySet()) {
            long lastOffset = -1;
            long lastSeq = -1;
            for (ConsumerRecord<String, String> r : e.getValue()) {
                long seq = Long.parseLong(r.value());
                assertTrue(r.offset() > lastOffset, when + ": offset " + r.offset() + " after " + lastOffset);
                assertTrue(seq > lastSeq, when + ": record " + seq + " after " + lastSeq + " in " + e.getKey());
                assertEquals(CrashLoad.key(seq), r.key(), when);
                assertEquals(org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                        r.key().getBytes(StandardCharsets.UTF_8))) % PARTITIONS, e.getKey().partition(), when);
                assertEquals(null, seen.put(seq, r.offset()), when + ": record " + seq + " twice");
                lastOffset = r.offset();
                lastSeq = seq;
            }
        }
    }

    /** Every acknowledged record is there at its offset, or superseded by a newer record of its key that is. */
    private static void checkNothingLost(CrashLoad.Outcome outcome,
            Map<TopicPartition, List<ConsumerRecord<String, String>>> log) {
        Map<Long, Long> present = new HashMap<>();
        Map<String, Long> newestPresent = new HashMap<>();
        for (List<ConsumerRecord<String, String>> records : log.values()) {
            for (ConsumerRecord<String, String> r : records) {
                long seq = Long.parseLong(r.value());
                present.put(seq, r.offset());
                newestPresent.merge(r.key(), seq, Math::max);
            }
        }
        for (long seq = 0; seq < outcome.sent(); seq++) {
            if (outcome.state(seq) == CrashLoad.State.REFUSED) {
                assertEquals(null, present.get(seq), "record " + seq + " that send() refused is in the log");
            }
            if (outcome.state(seq) != CrashLoad.State.ACKED) {
                continue;
            }
            Long at = present.get(seq);
            if (at != null) {
                assertEquals(outcome.offset(seq), (long) at, "offset of acknowledged record " + seq);
            } else {
                long newest = newestPresent.getOrDefault(CrashLoad.key(seq), -1L);
                assertTrue(newest > seq, "acknowledged record " + seq + " of " + CrashLoad.key(seq) + " is gone, and "
                        + "no newer record of its key is there (newest " + newest + ")");
            }
        }
    }
}
