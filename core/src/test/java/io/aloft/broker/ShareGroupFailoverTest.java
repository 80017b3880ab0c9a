package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.share.state.ShareStateTopic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups (KIP-932, issue 21) through failures on three broker processes: kafka-clients 4.3.1
 * {@link KafkaShareConsumer}s of one share group consume numbered records (written by an idempotent
 * acks=all producer while they read) while a partition moves to another broker
 * (Admin.alterPartitionReassignments; Aloft moves it without copying data: the new leader loads the
 * share-partition state from {@code __share_group_state}) and the broker that leads both the
 * partition and its share-state partition (moved there first) is SIGKILLed. Further rounds ({@code
 * -Daloft.share.failover.rounds=N}, default 1) alternate: kill the broker leading only the
 * share-state partition, then only the data partition, and so on.
 *
 * <p>The contract checked (at least once, as Kafka's share groups promise): every acknowledged
 * record was delivered at least once (nothing lost), and a record whose acknowledgement succeeded
 * ({@code commitSync} gave no error for its partition) is never delivered again after that
 * {@code commitSync} returned. Records delivered more than once (locks lost with a dead broker or
 * a moved partition, acknowledgements refused) are allowed and counted: the test prints a
 * {@code SHARE-FAILOVER} line with the count. And in the end every record is acknowledged: the
 * group's start offset (DescribeShareGroupOffsets) reaches the partition's end, nothing stays
 * stuck acquired by a path that died.
 *
 * <p>The test lives in {@code io.aloft.broker} for {@link TestCluster} (package-private); its
 * broker settings are the lock-duration, heartbeat and session floors of {@code
 * share.ShareGroupScenarios} plus a short broker session.
 */
class ShareGroupFailoverTest {
    private static final String TOPIC = "share-failover";
    private static final String GROUP = "share-failover-group";
    /**
     * One: every consumer shares it, so acknowledgements land out of offset order and the stored
     * state holds acknowledged records past the start offset (with two, a partition may have one
     * consumer alone, and a state that reloaded ACKNOWLEDGED as AVAILABLE went unnoticed).
     */
    private static final int PARTITIONS = 1;
    private static final int STATE_PARTITIONS = 3;
    private static final int RECORDS_PER_ROUND = Integer.getInteger("aloft.share.failover.records", 2_000);
    private static final int ROUNDS = Integer.getInteger("aloft.share.failover.rounds", 1);
    private static final int CONSUMERS = 3;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** About how long a consumer holds each poll's records before acknowledging them (a fifth to twice this). */
    private static final long PROCESSING_MS = 100;

    @TempDir
    Path dir;

    /** One record as a consumer got it: receive order (global), the number, where, and how often. */
    record Delivery(long seq, int consumer, int number, int partition, long offset, int deliveryCount) { }

    /** A commitSync that returned with no error for a partition: what it acknowledged, and when it returned. */
    record Ack(long seq, int consumer, List<Integer> numbers) { }

    @Test
    void partitionMoveAndSigkill_acknowledgedNeverRedelivered_nothingLost() throws Exception {
        Map<String, String> props = new HashMap<>(Map.of(
                "group.share.min.record.lock.duration.ms", "1000",
                "group.share.min.heartbeat.interval.ms", "500",
                "group.share.heartbeat.interval.ms", "1000",
                "group.share.min.session.timeout.ms", "6000",
                "group.share.session.timeout.ms", "10000",
                "share.coordinator.state.topic.num.partitions", Integer.toString(STATE_PARTITIONS),
                // A short broker session: a killed broker's partitions move within seconds.
                "broker.session.timeout.ms", "3000",
                "broker.heartbeat.interval.ms", "500"));
        props.put("wal.url", "file://" + Files.createDirectories(dir.resolve("wal-objects")).toAbsolutePath());
        long started = System.nanoTime();
        try (TestCluster cluster = TestCluster.start(dir, 3, 0, props);
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            System.out.printf("SHARE-FAILOVER cluster_started_ms=%d%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            Uuid topicId = admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).topicId(TOPIC)
                    .get(60, TimeUnit.SECONDS);
            List<AlterConfigOp> ops = new ArrayList<>();
            Map.of("share.auto.offset.reset", "earliest",
                    // Records held by a dead path come back after two seconds.
                    "share.record.lock.duration.ms", "2000",
                    // Kafka's highest: failures cost deliveries, and a record past the limit is archived unread.
                    "share.delivery.count.limit", "10")
                    .forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP), ops)).all()
                    .get(60, TimeUnit.SECONDS);

            Run run = new Run(cluster.bootstrapAll());
            run.startConsumers();
            try {
                for (int round = 1; round <= ROUNDS; round++) {
                    round(cluster, admin, run, topicId, round);
                }
                run.awaitAllConsumed(run.sent(), "after " + ROUNDS + " rounds");
                System.out.printf("SHARE-FAILOVER all_consumed_at_ms=%d%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                awaitAllAcknowledged(admin);
                System.out.printf("SHARE-FAILOVER all_acknowledged_at_ms=%d%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            } finally {
                run.stop();
            }
            run.check(run.sent());
            System.out.printf("SHARE-FAILOVER rounds=%d records=%d deliveries=%d redelivered_records=%d "
                    + "acknowledged_ok=%d ack_failures=%d total_ms=%d%n", ROUNDS, run.sent(),
                    run.deliveries.size(), run.redelivered(), run.acknowledgedOk(), run.ackFailures.get(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    /**
     * One round: produce this round's records (the producer runs all along); once consumption is
     * under way, move partition 0 to another broker (round 1) and then kill a broker: in round 1 the
     * one leading partition 0 and its share-state partition (moved to it first), in even rounds the
     * one leading only the share-state partition, in odd ones past 1 the one leading only partition 0.
     * The killed broker is started again before the next round.
     */
    private static void round(TestCluster cluster, Admin admin, Run run, Uuid topicId, int round) throws Exception {
        long first = run.distinct();
        // The producer goes on until the failures are over: they strike while records flow and are held.
        Thread producer = run.produce(RECORDS_PER_ROUND);
        try {
            run.awaitConsumed(first + RECORDS_PER_ROUND / 5, "round " + round + ": before the move");
            TopicPartition data = new TopicPartition(TOPIC, 0);
            TopicPartition state = new TopicPartition(ShareStateTopic.TOPIC,
                    CoordinatorTopic.partitionFor(GROUP + ":" + topicId + ":0", STATE_PARTITIONS));
            int leader = cluster.leader(TOPIC, 0);
            if (round == 1) {
                int to = leader % 3 + 1;
                move(cluster, admin, data, to);
                run.awaitConsumed(run.distinct() + RECORDS_PER_ROUND / 5, "round " + round + ": after the move");
                System.out.printf("SHARE-FAILOVER round=%d moved %s from %d to %d, redelivered_so_far=%d%n", round,
                        data, leader, to, run.redelivered());
                leader = to;
            }
            int victim;
            if (round % 2 == 1) {
                victim = leader;
                // Round 1: the state partition with the data partition, so one kill takes both.
                // Later odd rounds: the state partition elsewhere, so only the data partition's leader dies.
                move(cluster, admin, state, round == 1 ? leader : leader % 3 + 1);
            } else {
                move(cluster, admin, state, leader % 3 + 1);
                victim = leader % 3 + 1;
            }
            int stateLeader = cluster.leader(state.topic(), state.partition());
            long consumedBefore = run.distinct();
            cluster.kill(victim);
            System.out.printf("SHARE-FAILOVER round=%d killed broker %d (%s led by %d, %s by %d) consumed=%d%n", round,
                    victim, data, leader, state, stateLeader, consumedBefore);
            long killed = System.nanoTime();
            run.awaitConsumed(consumedBefore + RECORDS_PER_ROUND / 10, "round " + round + ": after SIGKILL of broker "
                    + victim);
            run.enough();
            System.out.printf("SHARE-FAILOVER round=%d consuming_again_after_kill_ms=%d redelivered_so_far=%d%n",
                    round, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed), run.redelivered());
            if (round < ROUNDS) {
                cluster.restart(victim); // the last round ends with two brokers: nothing needs the third
            }
        } finally {
            run.enough();
            producer.join(WAIT.toMillis() * 2);
        }
        run.rethrow("round " + round);
        assertTrue(!producer.isAlive(), "round " + round + ": the producer finishes");
    }

    /**
     * Waits until the group's start offset (DescribeShareGroupOffsets) of every partition is its end
     * offset: every record was acknowledged in the end, none is stuck acquired by a path that died.
     * The consumers run meanwhile, so what is still in flight (a lock of a failed acknowledgement)
     * comes back and is acknowledged.
     */
    private static void awaitAllAcknowledged(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        long deadline = System.nanoTime() + WAIT.toNanos();
        Map<TopicPartition, Long> starts = new HashMap<>();
        while (true) {
            try {
                admin.listShareGroupOffsets(Map.of(GROUP, new ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo(GROUP).get(30, TimeUnit.SECONDS)
                        .forEach((tp, info) -> starts.put(tp, info == null ? -1 : info.startOffset()));
            } catch (java.util.concurrent.ExecutionException e) {
                // a coordinator still loading after the failures: ask again
            }
            if (ends.entrySet().stream().allMatch(e -> starts.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "every record acknowledged in the end: start offsets " + starts
                    + ", end offsets " + ends);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static void move(TestCluster cluster, Admin admin, TopicPartition tp, int to) throws Exception {
        if (cluster.leader(tp.topic(), tp.partition()) != to) {
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(to)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        cluster.awaitLeader(tp.topic(), tp.partition(), to, "moving " + tp);
    }

    /**
     * The producer and consumers of the test and what they saw. The consumer threads append to the
     * concurrent collections; the test thread reads them.
     */
    private static final class Run {
        private final String bootstrap;
        private final AtomicLong clock = new AtomicLong();
        final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
        final List<Ack> acks = new CopyOnWriteArrayList<>();
        final AtomicLong ackFailures = new AtomicLong();
        private final Map<Integer, Boolean> seen = new ConcurrentHashMap<>();
        private final Map<Integer, Boolean> produced = new ConcurrentHashMap<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final List<KafkaShareConsumer<String, String>> consumers = new CopyOnWriteArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean stopping;
        /** The next number to produce: how many were sent, once the producer thread is done. */
        private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        private volatile boolean producing;

        Run(String bootstrap) {
            this.bootstrap = bootstrap;
        }

        /**
         * Sends numbered records (the numbers going on from the last call's), keyed by number, about
         * 200 a second, until it has sent at least {@code count} and the test called {@link #enough}.
         */
        Thread produce(int count) {
            producing = true;
            Thread t = new Thread(() -> {
                Properties p = new Properties();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                p.put(ProducerConfig.ACKS_CONFIG, "all");
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                    List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
                    int first = next.get();
                    for (int n = first; n < first + count || producing; n = next.incrementAndGet()) {
                        int number = n;
                        String v = Integer.toString(n);
                        sent.add(producer.send(new ProducerRecord<>(TOPIC, v, v), (m, e) -> {
                            if (e == null) {
                                produced.put(number, true);
                            }
                        }));
                        if (n % 20 == 19) {
                            Thread.sleep(100); // about 200 records a second: consumption spans the failures
                        }
                    }
                    for (java.util.concurrent.Future<?> f : sent) {
                        f.get(120, TimeUnit.SECONDS);
                    }
                } catch (Throwable e) {
                    failures.add(new AssertionError("producer", e));
                }
            }, "share-failover-producer");
            t.start();
            return t;
        }

        void startConsumers() {
            for (int i = 0; i < CONSUMERS; i++) {
                int id = i;
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
                p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "implicit");
                p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
                KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
                consumers.add(c);
                Thread t = new Thread(() -> consume(id, c), "share-failover-consumer-" + id);
                threads.add(t);
                t.start();
            }
        }

        /**
         * Polls, records each delivery, and acknowledges the poll's records (implicit mode) with
         * commitSync, noting per partition whether it succeeded.
         */
        private void consume(int id, KafkaShareConsumer<String, String> c) {
            try {
                c.subscribe(List.of(TOPIC));
                while (!stopping) {
                    ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
                    Map<Integer, List<Integer>> byPartition = new HashMap<>();
                    for (ConsumerRecord<String, String> r : records) {
                        int number = Integer.parseInt(r.value());
                        deliveries.add(new Delivery(clock.incrementAndGet(), id, number, r.partition(), r.offset(),
                                r.deliveryCount().map(Short::intValue).orElse(-1)));
                        seen.put(number, true);
                        byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(number);
                    }
                    if (records.isEmpty()) {
                        continue;
                    }
                    // "Processing": records stay acquired and unacknowledged a while, so a failure
                    // finds some in flight (their locks and the acknowledgements under way); for a
                    // random time, so consumers acknowledge out of offset order and the stored state
                    // holds acknowledged records past the start offset.
                    TimeUnit.MILLISECONDS.sleep(java.util.concurrent.ThreadLocalRandom.current()
                            .nextLong(PROCESSING_MS / 5, PROCESSING_MS * 2));
                    Map<TopicIdPartition, Optional<KafkaException>> result;
                    try {
                        result = c.commitSync(Duration.ofSeconds(10));
                    } catch (WakeupException e) {
                        return;
                    } catch (KafkaException e) {
                        ackFailures.incrementAndGet(); // no partition known acknowledged
                        continue;
                    }
                    long now = clock.incrementAndGet();
                    for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
                        Optional<KafkaException> error = result.entrySet().stream()
                                .filter(r -> r.getKey().partition() == e.getKey()).map(Map.Entry::getValue)
                                .findFirst().orElse(Optional.of(new KafkaException("no result")));
                        if (error.isEmpty()) {
                            acks.add(new Ack(now, id, e.getValue()));
                        } else {
                            ackFailures.incrementAndGet();
                        }
                    }
                }
            } catch (WakeupException e) {
                // stopping
            } catch (Throwable e) {
                failures.add(new AssertionError("consumer " + id, e));
            } finally {
                // Bounded: the default 30 s would be spent on a group coordinator or leader the test killed.
                c.close(Duration.ofSeconds(5));
            }
        }

        /** The producer may stop once it has sent its minimum. */
        void enough() {
            producing = false;
        }

        /** Records sent (every producer thread done). */
        int sent() {
            return next.get();
        }

        long distinct() {
            return seen.size();
        }

        void awaitConsumed(long count, String what) throws Exception {
            await(() -> seen.size() >= count, what + ": " + count + " distinct records consumed (have "
                    + seen.size() + ")");
        }

        void awaitAllConsumed(int count, String what) throws Exception {
            await(() -> produced.size() >= count && seen.keySet().containsAll(produced.keySet()),
                    what + ": every one of " + count + " records produced and consumed");
        }

        private void await(BooleanSupplier condition, String what) throws Exception {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!condition.getAsBoolean()) {
                rethrow(what);
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + " within " + WAIT + " (produced " + produced.size()
                            + ", consumed " + seen.size() + ")");
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }

        void rethrow(String what) {
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError(what + ": " + failures.get(0), failures.get(0));
                failures.stream().skip(1).forEach(e::addSuppressed);
                throw e;
            }
        }

        void stop() throws InterruptedException {
            stopping = true;
            consumers.forEach(KafkaShareConsumer::wakeup);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }

        int redelivered() {
            Map<Integer, Integer> counts = new HashMap<>();
            deliveries.forEach(d -> counts.merge(d.number(), 1, Integer::sum));
            return (int) counts.values().stream().filter(c -> c > 1).count();
        }

        long acknowledgedOk() {
            return acks.stream().mapToLong(a -> a.numbers().size()).sum();
        }

        /**
         * Nothing lost: every number produced was delivered, under one (partition, offset). Nothing
         * acknowledged delivered again: no delivery of a number after a commitSync acknowledging it
         * returned without error.
         */
        void check(int count) {
            rethrow("at the end");
            assertEquals(count, produced.size(), "every record acknowledged by the producer");
            List<Integer> lost = produced.keySet().stream().filter(n -> !seen.containsKey(n)).sorted().toList();
            assertTrue(lost.isEmpty(), "records never delivered: " + lost);
            Map<Integer, String> where = new HashMap<>();
            for (Delivery d : deliveries) {
                String at = d.partition() + "@" + d.offset();
                String before = where.putIfAbsent(d.number(), at);
                assertTrue(before == null || before.equals(at), "record " + d.number() + " at " + before + " and " + at
                        + " (the idempotent producer wrote it twice?)");
            }
            Map<Integer, Ack> firstAck = new HashMap<>();
            for (Ack a : acks) {
                for (int n : a.numbers()) {
                    firstAck.merge(n, a, (x, y) -> x.seq() <= y.seq() ? x : y);
                }
            }
            List<String> broken = new ArrayList<>();
            for (Delivery d : deliveries) {
                Ack a = firstAck.get(d.number());
                if (a != null && d.seq() > a.seq()) {
                    broken.add(d + " after " + "consumer " + a.consumer() + "'s acknowledgement succeeded (seq "
                            + a.seq() + ")");
                }
            }
            assertTrue(broken.isEmpty(), broken.size() + " deliveries of records already acknowledged: "
                    + broken.subList(0, Math.min(20, broken.size())));
        }
    }
}
