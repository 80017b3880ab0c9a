package io.aloft.autoscaler.execute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.TestClusters;
import io.aloft.autoscaler.balance.Move;
import io.aloft.autoscaler.balance.Plan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ReassignmentExecutor against a real 3-broker Aloft cluster: batches honour the per-broker limit
 * and the run budget, partitions end on their targets while an idempotent acks=all producer keeps
 * writing and loses nothing, a move to a broker that does not exist fails with Kafka's error, and a
 * dry run changes nothing.
 */
class ReassignmentExecutorTest {
    private static final String TOPIC = "moving";
    private static final int PARTITIONS = 6;
    private static TestClusters.Started started;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        started = TestClusters.start(3, Map.of());
        admin = TestClusters.admin(started.cluster().bootstrap());
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1), new NewTopic("other", 2, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (leaders(TOPIC).containsValue(-1) || leaders("other").containsValue(-1)) {
            assertTrue(System.nanoTime() < deadline, "no leaders");
            Thread.sleep(100);
        }
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (started != null) {
            started.close();
        }
    }

    @Test
    void execute_batchesWithinLimits_partitionsLandAndProducerLosesNothing() throws Exception {
        Map<Integer, Integer> before = leaders(TOPIC);
        // Every partition to the next broker (1 -> 2 -> 3 -> 1): 6 moves, each touching 2 of 3 brokers.
        List<Move> moves = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            int from = before.get(p);
            moves.add(new Move(TOPIC, p, from, from % 3 + 1, 1000, 0, "test: rotate " + p));
        }
        ExecutionLimits limits = new ExecutionLimits(2, Duration.ofMillis(200), 5, Duration.ofSeconds(30));

        Set<Long> acked = ConcurrentHashMap.newKeySet();
        List<Exception> sendErrors = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread producer = new Thread(() -> produce(running, acked, sendErrors), "test-producer");
        producer.start();
        ExecutionResult result;
        try {
            waitForAcks(acked, 200);
            result = new ReassignmentExecutor(admin, limits).execute(new Plan(moves, List.of()), false);
            int ackedAtEnd = acked.size();
            waitForAcks(acked, ackedAtEnd + 200); // the producer still writes after the moves
        } finally {
            running.set(false);
            producer.join(60_000);
        }

        assertEquals(List.of(), result.failed());
        assertEquals(moves.subList(0, 5), result.done().stream()
                .sorted(java.util.Comparator.comparingInt(Move::partition)).toList());
        assertEquals(List.of(moves.get(5)), result.deferred());
        assertTrue(result.batches().size() >= 2, result.batches().toString());
        for (ExecutionResult.Batch b : result.batches()) {
            Map<Integer, Integer> perBroker = new HashMap<>();
            b.moves().forEach(m -> {
                perBroker.merge(m.fromBroker(), 1, Integer::sum);
                perBroker.merge(m.toBroker(), 1, Integer::sum);
            });
            assertTrue(perBroker.values().stream().allMatch(n -> n <= 2), "batch " + b.index() + ": " + perBroker);
        }
        assertEquals(5, result.batches().stream().mapToInt(b -> b.moves().size()).sum());
        Map<Integer, Integer> after = leaders(TOPIC);
        for (Move m : moves.subList(0, 5)) {
            assertEquals(m.toBroker(), after.get(m.partition()), m.name());
        }
        assertEquals(before.get(5), after.get(5), "the deferred move must not run");

        assertEquals(List.of(), sendErrors);
        List<Long> read = readAll();
        assertEquals(acked.size(), read.size(), "records read back (duplicates would be extra)");
        assertTrue(Set.copyOf(read).containsAll(acked), "every acknowledged record is read back");
    }

    @Test
    void execute_unknownBroker_failsWithKafkasErrorAndMovesNothing() throws Exception {
        Map<Integer, Integer> before = leaders("other");
        Move bad = new Move("other", 0, before.get(0), 99, 0, 0, "test: no broker 99");
        Move unknownTopic = new Move("no-such-topic", 0, 1, 2, 0, 0, "test: no topic");
        ExecutionResult result = new ReassignmentExecutor(admin,
                new ExecutionLimits(2, Duration.ZERO, 10, Duration.ofSeconds(10)))
                .execute(new Plan(List.of(bad, unknownTopic), List.of()), false);
        assertEquals(List.of(), result.done());
        assertEquals(2, result.failed().size(), result.failed().toString());
        ExecutionResult.Failure f = result.failed().stream().filter(x -> x.move() == bad).findFirst().orElseThrow();
        // Kafka answers a target that is not a registered broker with INVALID_REPLICA_ASSIGNMENT.
        assertTrue(f.error().startsWith("InvalidReplicaAssignmentException: "), f.error());
        assertTrue(result.failed().stream().anyMatch(x -> x.move() == unknownTopic
                && x.error().startsWith("UnknownTopicOrPartitionException")), result.failed().toString());
        assertEquals(before, leaders("other"));
    }

    @Test
    void execute_dryRun_printsEveryMoveAndChangesNothing() throws Exception {
        Map<Integer, Integer> before = leaders("other");
        List<Move> moves = List.of(
                new Move("other", 0, before.get(0), before.get(0) % 3 + 1, 2e6, 1e6, "network-in band: broker hot"),
                new Move("other", 1, before.get(1), before.get(1) % 3 + 1, 0, 0, "partition count"));
        List<String> printed = new ArrayList<>();
        ExecutionResult result = new ReassignmentExecutor(admin,
                new ExecutionLimits(1, Duration.ofSeconds(30), 1, Duration.ofSeconds(30)), printed::add)
                .execute(new Plan(moves, List.of()), true);
        assertTrue(result.dryRun());
        assertEquals(List.of(), result.done());
        assertEquals(List.of(moves.get(0)), result.batches().get(0).moves());
        assertEquals(List.of(moves.get(1)), result.deferred());
        assertTrue(printed.contains("  " + ReassignmentExecutor.describe(moves.get(0))), printed.toString());
        assertTrue(printed.stream().anyMatch(l -> l.startsWith("Deferred") && l.contains("partition count")),
                printed.toString());
        assertTrue(ReassignmentExecutor.describe(moves.get(0)).contains("(in 2.00 MB/s, out 1.00 MB/s): network-in"));
        assertTrue(result.duration().toMillis() < 30_000, "a dry run does not pause between batches");
        assertEquals(before, leaders("other"));
    }

    private static void produce(AtomicBoolean running, Set<Long> acked, List<Exception> errors) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, started.cluster().bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        try (KafkaProducer<Long, Long> producer = new KafkaProducer<>(p, new LongSerializer(), new LongSerializer())) {
            for (long seq = 0; running.get(); seq++) {
                long s = seq;
                producer.send(new ProducerRecord<>(TOPIC, (int) (seq % PARTITIONS), s, s), (md, e) -> {
                    if (e != null) {
                        errors.add(e);
                    } else {
                        acked.add(s);
                    }
                });
                if (seq % 20 == 0) {
                    Thread.sleep(2);
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            errors.add(e);
        }
    }

    private static void waitForAcks(Set<Long> acked, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (acked.size() < atLeast) {
            assertTrue(System.nanoTime() < deadline, "only " + acked.size() + " records acknowledged");
            Thread.sleep(20);
        }
    }

    private static List<Long> readAll() throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, started.cluster().bootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<TopicPartition> parts = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            parts.add(new TopicPartition(TOPIC, i));
        }
        List<Long> out = new ArrayList<>();
        try (KafkaConsumer<Long, Long> consumer = new KafkaConsumer<>(p, new LongDeserializer(),
                new LongDeserializer())) {
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(20));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "could not read back to " + end);
                for (ConsumerRecord<Long, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
        }
        return out;
    }

    private static Map<Integer, Integer> leaders(String topic) throws Exception {
        Map<Integer, Integer> out = new HashMap<>();
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(20, TimeUnit.SECONDS).get(topic);
        for (TopicPartitionInfo p : d.partitions()) {
            out.put(p.partition(), p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id());
        }
        return out;
    }
}
