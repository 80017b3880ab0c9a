package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Apache Kafka 4.3.1's own {@code kafka-reassign-partitions.sh} (run as a child process, unchanged)
 * against a 3-broker cluster, while an idempotent acks=all producer and a consumer group run:
 * {@code --generate} proposes a plan, {@code --execute} applies it and then a bounded number of
 * random single-partition moves ({@value #DEFAULT_MOVES} by default, {@code -Daloft.reassign.moves=N}
 * for more or fewer; {@code -Daloft.reassign.seed} to replay; every fifth moves the group's
 * coordinator, its {@code __consumer_offsets} partition), each followed by {@code --verify} until it
 * reports the move completed and by an acknowledged produce on the new broker. Afterwards every
 * acknowledged record is in its partition exactly once and in order, and the group consumed each
 * exactly once. And AlterPartitionReassignments' refusals through Admin (several replicas, an
 * unknown broker, a broker named twice, a cancellation, an unknown partition) leave the partition where it is.
 * And a live group's coordinator moved by the tool (classic and consumer protocols): offsets intact.
 */
class ReassignPartitionsToolTest {
    private static final int BROKERS = 3;
    private static final int PARTITIONS = 4;
    /** Two of them move the group's coordinator; -Daloft.reassign.moves=N for a longer run. */
    private static final int DEFAULT_MOVES = 10;
    private static final int OFFSETS_PARTITIONS = 3;
    private static final String GROUP = "reassign-group";
    /**
     * The producer's pace: a record to each partition every this many microseconds (2,000 records/s
     * in all), so a run of many moves stays small to read back and leaves the cores to the brokers.
     */
    private static final long ROUND_MICROS = 2_000;
    private static final String TOPIC = "reassigned";

    @TempDir
    static Path dir;
    private static TestCluster cluster;
    private static ReassignTool tool;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(dir.resolve("cluster"), BROKERS, 0, Map.of("offsets.topic.num.partitions",
                Integer.toString(OFFSETS_PARTITIONS),
                "group.initial.rebalance.delay.ms", "0"));
        tool = new ReassignTool(cluster, BROKERS, dir.resolve("tool"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void reassignTool_randomMovesUnderLoad_everyAcknowledgedRecordOnceInOrderAndConsumedOnce() throws Exception {
        int moves = Integer.getInteger("aloft.reassign.moves", DEFAULT_MOVES);
        long seed = Long.getLong("aloft.reassign.seed", System.nanoTime());
        Random random = new Random(seed);
        String context = "seed " + seed + " (-Daloft.reassign.seed to replay)";
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            // Every partition opened on its first broker before the load starts (ListOffsets opens it):
            // this test is about moves. (A first open that failed with an idempotent producer's batches
            // queued behind it once left a gap here; every queued append now fails with it:
            // PartitionManagerAppendDeadlineTest.)
            Map<TopicPartition, OffsetSpec> all = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                all.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                try {
                    admin.listOffsets(all).all().get(60, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    assertTrue(System.nanoTime() < deadline, "every partition opened within 120 s: " + e);
                }
            }
        }
        SequenceProducer producer = new SequenceProducer(cluster.bootstrap(1), TOPIC, PARTITIONS, ROUND_MICROS);
        GroupConsumer consumer = new GroupConsumer(cluster.bootstrap(2));
        producer.start();
        consumer.start();
        try {
            producer.awaitAcknowledged(0, 10, context);

            Path topics = Files.writeString(dir.resolve("topics.json"),
                    "{\"version\":1,\"topics\":[{\"topic\":\"" + TOPIC + "\"}]}");
            KafkaCli.Result generated = tool.run("--generate", "--topics-to-move-json-file", topics.toString(),
                    "--broker-list", "1,2,3");
            assertEquals(0, generated.exitCode(), generated.toString());
            List<String> lines = generated.lines();
            int proposed = lines.indexOf("Proposed partition reassignment configuration");
            assertTrue(lines.contains("Current partition replica assignment") && proposed >= 0
                    && proposed + 1 < lines.size(), generated.toString());
            // With a throttle, as operators of Kafka often run it: set by --execute, cleared by --verify.
            execute(lines.get(proposed + 1), "generated plan", producer, context, "--throttle", "50000000");

            for (int move = 0; move < moves; move++) {
                // Every fifth move is the group's coordinator: its __consumer_offsets partition.
                boolean coordinator = move % 5 == 4;
                String topic = coordinator ? "__consumer_offsets" : TOPIC;
                int partition = coordinator ? Math.abs(GROUP.hashCode()) % OFFSETS_PARTITIONS
                        : random.nextInt(PARTITIONS);
                int from = cluster.leader(topic, partition);
                int to = 1 + (from - 1 + 1 + random.nextInt(BROKERS - 1)) % BROKERS;
                execute(ReassignTool.plan(topic, partition, to), "move " + move + ": " + topic + "-"
                        + partition + " " + from + " -> " + to, producer, context);
                cluster.awaitLeader(topic, partition, to, "move " + move);
            }
        } finally {
            producer.stop();
        }
        producer.rethrow(context);
        int[] sent = producer.sent();
        for (int p = 0; p < PARTITIONS; p++) {
            assertEquals(sent[p], producer.acknowledged.get(p), "every record sent to " + TOPIC + "-" + p
                    + " was acknowledged; " + context);
        }
        try {
            consumer.awaitConsumed(sent, context);
        } finally {
            consumer.stop();
        }
        consumer.rethrow(context);
        for (int p = 0; p < PARTITIONS; p++) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < sent[p]; i++) {
                expected.add(i);
            }
            assertEquals(expected, SequenceProducer.readPartition(cluster.bootstrap(3), TOPIC, p, sent[p]), "the log of " + TOPIC + "-" + p
                    + " holds every acknowledged record once, in order; " + context);
            assertEquals(expected, consumer.consumed.get(p), "the group consumed " + TOPIC + "-" + p
                    + " once, in order; " + context);
        }
    }

    @Test
    void alterPartitionReassignments_badTargetsAndCancellation_refusedAndNothingMoves() throws Exception {
        String topic = "refused";
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = cluster.admin(2)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            int owner = cluster.leader(topic, 0);
            int other = owner % BROKERS + 1;

            Throwable several = refusal(admin, tp, Optional.of(new NewPartitionReassignment(List.of(other, owner))));
            assertInstanceOf(InvalidReplicaAssignmentException.class, several, several.toString());
            assertTrue(several.getMessage().contains("exactly one replica"), several.getMessage());
            Throwable unknown = refusal(admin, tp, Optional.of(new NewPartitionReassignment(List.of(7))));
            assertInstanceOf(InvalidReplicaAssignmentException.class, unknown, unknown.toString());
            Throwable twice = refusal(admin, tp, Optional.of(new NewPartitionReassignment(List.of(other, other))));
            assertInstanceOf(InvalidReplicaAssignmentException.class, twice, twice.toString());
            Throwable cancel = refusal(admin, tp, Optional.empty());
            assertInstanceOf(NoReassignmentInProgressException.class, cancel, cancel.toString());
            Throwable missing = refusal(admin, new TopicPartition(topic, 1),
                    Optional.of(new NewPartitionReassignment(List.of(other))));
            assertInstanceOf(UnknownTopicOrPartitionException.class, missing, missing.toString());

            assertEquals(owner, cluster.leader(topic, 0), "no refused request moved the partition");
            assertEquals(Map.of(), admin.listPartitionReassignments().reassignments().get(60, TimeUnit.SECONDS));

            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(other)))))
                    .all().get(60, TimeUnit.SECONDS);
            cluster.awaitLeader(topic, 0, other, "a one-broker target moves the partition");
            assertEquals(Map.of(), admin.listPartitionReassignments().reassignments().get(60, TimeUnit.SECONDS),
                    "a move is complete once answered");
        }
    }

    /**
     * A group's coordinator moves with its {@code __consumer_offsets} partition, its member idle
     * between polls: the new coordinator has loaded the committed offsets (read back through Admin
     * before the member commits again), the member goes on from its position, and a new member after
     * it starts from what was committed. For both group protocols: classic and KIP-848's consumer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void coordinatorMovedByTheTool_offsetsIntact_memberContinues_newMemberResumes(String protocol) throws Exception {
        String topic = "coordinated-" + protocol;
        String group = "moving-" + protocol;
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        produce(topic, 0, 100);

        List<Integer> consumed = new ArrayList<>();
        try (KafkaConsumer<String, String> member = consumer(group, protocol)) {
            member.subscribe(List.of(topic));
            pollUntil(member, consumed, 50);
            member.commitSync(Map.of(tp, new OffsetAndMetadata(50)), Duration.ofSeconds(60));

            int offsetsPartition = Math.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            int from;
            try (Admin admin = cluster.admin(2)) {
                from = admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS).get(group)
                        .coordinator().id();
            }
            assertEquals(from, cluster.leader("__consumer_offsets", offsetsPartition),
                    "the coordinator is the broker serving the group's __consumer_offsets partition");
            int to = from % BROKERS + 1;
            tool.executeAndVerify(ReassignTool.plan("__consumer_offsets", offsetsPartition, to),
                    group + "'s coordinator " + from + " -> " + to);
            cluster.awaitLeader("__consumer_offsets", offsetsPartition, to, "coordinator move");

            try (Admin admin = cluster.admin(3)) {
                // Admin finds the coordinator afresh: the new one answers with the loaded offsets.
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
                assertEquals(50L, committed.get(tp).offset(), "committed offset on the new coordinator");
                assertEquals(to, admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS)
                        .get(group).coordinator().id(), "the group's coordinator after the move");
            }
            // The member goes on from its position (rejoining if the new coordinator asks it to).
            pollUntil(member, consumed, 100);
            member.commitSync(Duration.ofSeconds(60));
        }
        assertEquals(range(0, 100), consumed, "the member consumed every record once, across the move");

        // A new member starts from the committed offset: only what came after.
        produce(topic, 100, 10);
        List<Integer> resumed = new ArrayList<>();
        try (KafkaConsumer<String, String> next = consumer(group, protocol)) {
            next.subscribe(List.of(topic));
            pollUntil(next, resumed, 10);
            try (Admin admin = cluster.admin(1)) {
                assertEquals(110L, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(60, TimeUnit.SECONDS)
                        .get(tp).offset());
            }
        }
        assertEquals(range(100, 110), resumed, "a new member resumes at the committed offset");
    }

    private static void produce(String topic, int from, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(1));
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i))).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(String group, String protocol) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(2));
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls until {@code into} holds {@code count} values (max.poll.records=10 keeps it from overshooting a multiple of 10). */
    private static void pollUntil(KafkaConsumer<String, String> consumer, List<Integer> into, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (into.size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("consumed " + into.size() + " of " + count + " within 60 s");
            }
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                into.add(Integer.parseInt(r.value()));
            }
        }
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }
    private static Throwable refusal(Admin admin, TopicPartition tp, Optional<NewPartitionReassignment> target) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> admin.alterPartitionReassignments(
                Map.of(tp, target)).all().get(60, TimeUnit.SECONDS), tp + " -> " + target);
        return e.getCause();
    }

    /**
     * Runs {@code --execute} with {@code plan}, then {@code --verify} until every partition of the
     * plan is reported completed, then waits for the producer to have records acknowledged by the
     * partitions' new owners.
     */
    private void execute(String plan, String what, SequenceProducer producer, String context, String... options)
            throws Exception {
        int[] before = producer.acknowledgedNow();
        tool.executeAndVerify(plan, what, options);
        for (int p = 0; p < PARTITIONS; p++) {
            producer.awaitAcknowledged(p, before[p] + 10, what + "; " + context);
        }
    }

    /** One member of a consumer group on its own thread, committing after each poll it processed. */
    private static final class GroupConsumer {
        final List<List<Integer>> consumed = new ArrayList<>();
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final Thread thread;
        private final String bootstrap;

        GroupConsumer(String bootstrap) {
            this.bootstrap = bootstrap;
            for (int p = 0; p < PARTITIONS; p++) {
                consumed.add(Collections.synchronizedList(new ArrayList<>()));
            }
            thread = new Thread(this::run, "reassign-test-consumer");
        }

        void start() {
            thread.start();
        }

        private void run() {
            Properties cp = new Properties();
            cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            cp.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(),
                    new StringDeserializer())) {
                c.subscribe(List.of(TOPIC));
                while (!stopping.get()) {
                    var records = c.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<String, String> r : records) {
                        consumed.get(r.partition()).add(Integer.parseInt(r.value()));
                    }
                    if (!records.isEmpty()) {
                        c.commitSync(Duration.ofSeconds(60));
                    }
                }
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }

        void awaitConsumed(int[] counts, String context) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (int p = 0; p < PARTITIONS; p++) {
                while (consumed.get(p).size() < counts[p]) {
                    rethrow(context);
                    assertTrue(System.nanoTime() < deadline, "the group consumed " + counts[p] + " records of "
                            + TOPIC + "-" + p + " within 120 s (has " + consumed.get(p).size() + "); " + context);
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            }
        }

        void stop() throws InterruptedException {
            stopping.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }

        void rethrow(String context) {
            Throwable first = failures.peek();
            if (first != null) {
                throw new AssertionError("the group consumer failed; " + context, first);
            }
        }
    }
}
