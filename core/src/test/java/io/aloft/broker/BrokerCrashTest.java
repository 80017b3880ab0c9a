package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.TestQuorum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The broker in its own JVM ({@link BrokerChild}, i.e. {@link BrokerMain} with a properties file) is
 * SIGKILLed at random moments while an idempotent {@code acks=all} producer in this JVM sends keyed,
 * numbered records to a 4-partition topic; it is restarted on the same data directory and ports each
 * time, and the producer carries on. A final SIGKILL and restart precede reading everything back.
 *
 * <p>What Kafka promises for this producer, and what is asserted:
 * <ul>
 *   <li>an acknowledged record is durable: it is in the log exactly once, at the partition and
 *       offset its acknowledgement named;
 *   <li>retries are deduplicated (idempotence): no record is in the log twice, acknowledged or not
 *       (the test never re-sends a failed record, so any second copy would be a broker duplicate);
 *   <li>records of one producer to one partition are appended in send order; only one producer runs
 *       at a time and the next starts after the previous one closed, so log order is send order;
 *   <li>a record whose send failed (expired, or the producer failed) may or may not be in the log,
 *       because the broker may have made it durable before the acknowledgement was lost; a record
 *       that {@code send()} refused was never sent, and is absent;
 *   <li>offsets are dense (no transactions, no compaction) and every record is in the partition
 *       that the default partitioner chose for its key.
 * </ul>
 *
 * <p>The delivery timeout is short (8 s), so a restart that takes long makes batches expire: the
 * "failed" cases and the producer's epoch bump (KIP-360) are exercised, not only clean retries.
 *
 * <p>{@code -Daloft.broker.crash.rounds} (default 5) sets the number of random kills and
 * {@code -Daloft.broker.crash.seed} replays a run; the seed is printed. The broker's output goes to
 * {@code target/broker-crash/broker-<seed>.log}, kept for evidence.
 */
class BrokerCrashTest {
    private static final int ROUNDS = Integer.getInteger("aloft.broker.crash.rounds", 5);
    private static final long SEED = Long.getLong("aloft.broker.crash.seed", System.nanoTime());
    private static final String TOPIC = "crash";
    private static final int PARTITIONS = 4;
    /** Acknowledgements the broker must give after the last restart before the producer stops. */
    private static final int FINAL_ACKS = 500;

    @TempDir
    Path dir;

    private Path config;
    private CrashableBroker broker;
    private String bootstrap;

    /** With the block WAL (a file here), and with the WAL in object storage ({@code wal.url}, file:// here). */
    @ParameterizedTest
    @ValueSource(strings = {"block", "object"})
    void brokerSigkilledAtRandomMoments_everyAcknowledgedRecordOnceInOrder(String walPlacement) throws Exception {
        System.out.println("BrokerCrashTest wal=" + walPlacement + " seed=" + SEED + " rounds=" + ROUNDS
                + " (replay with -Daloft.broker.crash.seed=" + SEED + ")");
        Random random = new Random(SEED);
        int clientPort = TestQuorum.freePort();
        int controllerPort = TestQuorum.freePort();
        bootstrap = "127.0.0.1:" + clientPort;
        config = dir.resolve("server.properties");
        // The same file (so the same ports) for every start: the voter's address is in its Raft log.
        Files.writeString(config, String.join("\n",
                "node.id=1",
                "listeners=PLAINTEXT://" + bootstrap,
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "aloft.data.dir=" + dir.resolve("data"),
                "wal.capacity.bytes=" + (64L << 20),
                "s3.log.cache.size.bytes=" + (16L << 20),
                "s3.wal.upload.threshold.bytes=" + (4L << 20),
                "s3.block.cache.size.bytes=" + (16L << 20),
                "auto.create.topics.enable=false",
                walPlacement.equals("object") ? "wal.url=file://" + dir.resolve("wal-objects").toAbsolutePath() : "",
                ""));
        Path evidence = Files.createDirectories(
                Path.of(System.getProperty("aloft.test.logdir", "target"), "broker-crash"));
        Path logFile = evidence.resolve("broker-" + walPlacement + "-" + SEED + ".log");
        Files.deleteIfExists(logFile);
        broker = new CrashableBroker(config, logFile);
        try {
            run(random);
        } catch (AssertionError | Exception e) {
            throw new AssertionError("seed " + SEED + ", broker output in " + logFile.toAbsolutePath()
                    + ": " + e.getMessage(), e);
        } finally {
            broker.close();
        }
    }

    private void run(Random random) throws Exception {
        broker.start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        CrashLoad.Outcome outcome;
        try (CrashLoad load = new CrashLoad(bootstrap, TOPIC).start()) {
            for (int round = 0; round < ROUNDS; round++) {
                // A random point in the stream of acknowledgements: sometimes the first one after the
                // restart, sometimes thousands later, with batches in flight at the kill either way.
                int acks = 1 + random.nextInt(random.nextBoolean() ? 50 : 3000);
                load.awaitAcked(load.acked() + acks, broker.process(), "round " + round + " (" + acks + " acks)");
                broker.kill();
                broker.start();
            }
            load.awaitAcked(load.acked() + FINAL_ACKS, broker.process(), "after the last restart");
            outcome = load.stop();
        }
        // Nothing in flight now; everything acknowledged so far must survive one more SIGKILL.
        broker.kill();
        broker.start();
        Map<TopicPartition, List<ConsumerRecord<String, String>>> log = readAll(bootstrap, TOPIC, PARTITIONS);
        System.out.println("BrokerCrashTest seed=" + SEED + ": " + outcome.summary() + "; " + present(log)
                + " records in the log");
        verify(outcome, log);
    }

    /** Asserts the guarantees listed in the class comment. */
    private static void verify(CrashLoad.Outcome outcome, Map<TopicPartition, List<ConsumerRecord<String, String>>> log) {
        Map<Long, long[]> found = new HashMap<>(); // seq -> {partition, offset}
        for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e : log.entrySet()) {
            int partition = e.getKey().partition();
            long expectedOffset = 0;
            long lastSeq = -1;
            for (ConsumerRecord<String, String> r : e.getValue()) {
                assertEquals(expectedOffset++, r.offset(), "offsets of partition " + partition + " are dense");
                long seq = Long.parseLong(r.value());
                assertTrue(seq >= 0 && seq < outcome.sent(), "record " + seq + " was sent by this test");
                assertEquals(CrashLoad.key(seq), r.key(), "key of record " + seq);
                assertEquals(partitionOf(r.key()), partition, "partition of record " + seq + " (its key's)");
                assertTrue(seq > lastSeq, "partition " + partition + " has record " + seq + " at offset "
                        + r.offset() + " after record " + lastSeq + ": not in send order");
                lastSeq = seq;
                long[] previous = found.put(seq, new long[] {partition, r.offset()});
                assertEquals(null, previous, "record " + seq + " is in the log twice (offsets "
                        + (previous == null ? "" : previous[1]) + " and " + r.offset() + ")");
            }
        }
        int failedPresent = 0;
        for (long seq = 0; seq < outcome.sent(); seq++) {
            long[] at = found.get(seq);
            switch (outcome.state(seq)) {
                case ACKED -> {
                    assertTrue(at != null, "acknowledged record " + seq + " (partition " + outcome.partition(seq)
                            + " offset " + outcome.offset(seq) + ") is missing");
                    assertEquals(outcome.partition(seq), at[0], "partition of acknowledged record " + seq);
                    assertEquals(outcome.offset(seq), at[1], "offset of acknowledged record " + seq);
                }
                case FAILED -> failedPresent += at != null ? 1 : 0; // may be there (once) or not
                case REFUSED -> assertEquals(null, at, "record " + seq + " that send() refused is in the log");
                case PENDING -> fail("record " + seq + " has no outcome after the producer closed");
            }
        }
        System.out.println("BrokerCrashTest: " + failedPresent + " of " + outcome.failed()
                + " failed records are in the log");
        assertTrue(outcome.ackedCount() >= FINAL_ACKS, outcome.summary());
    }

    static int partitionOf(String key) {
        // The default partitioner of kafka-clients for a keyed record.
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    private static long present(Map<TopicPartition, List<ConsumerRecord<String, String>>> log) {
        return log.values().stream().mapToLong(List::size).sum();
    }

    /** Every record of a topic, per partition in offset order, read without a consumer group. */
    static Map<TopicPartition, List<ConsumerRecord<String, String>>> readAll(String bootstrap, String topic,
            int partitionCount) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        Map<TopicPartition, List<ConsumerRecord<String, String>>> log = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < partitionCount; i++) {
                partitions.add(new TopicPartition(topic, i));
                log.put(partitions.get(i), new ArrayList<>());
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(60));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Set<TopicPartition> open = new java.util.HashSet<>(partitions);
            while (true) {
                open.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
                if (open.isEmpty()) {
                    return log;
                }
                if (System.nanoTime() > deadline) {
                    fail("could not read to the end offsets " + ends + " within 60 s; positions "
                            + partitions.stream().map(tp -> tp + "=" + consumer.position(tp)).toList());
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    log.get(new TopicPartition(r.topic(), r.partition())).add(r);
                }
            }
        }
    }
}
