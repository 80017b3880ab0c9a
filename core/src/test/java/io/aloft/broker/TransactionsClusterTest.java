package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions on a cluster of three broker processes (issue 16): the transaction coordinator
 * (one {@code __transaction_state} partition) on a broker that leads none of the topic's
 * partitions, which are spread over the other two, so every marker crosses brokers
 * (WriteTxnMarkers). A stock transactional producer and read_committed consumer: commits and
 * aborts show exactly the committed records, in order, and the last stable offset reaches the high
 * watermark; offsets sent in transactions reach a group coordinator on another broker than the
 * transaction coordinator and count only when committed; a partition leader SIGKILLed in the middle of a transaction, and the coordinator
 * SIGKILLed while a commit is under way, leave every transaction all or nothing, and nothing
 * committed is lost; the next coordinator's markers carry a higher coordinator epoch. The tests share one cluster and run in order (each kill is repaired, by a
 * restart, before the next test).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TransactionsClusterTest {
    private static final String TOPIC = "txn-cluster";
    private static final int PARTITIONS = 4;
    private static final String STATE_TOPIC = "__transaction_state";

    @TempDir
    static Path dir;
    static TestCluster cluster;
    /** The broker leading __transaction_state-0 at the start. */
    static int coordinator;
    /** Every transaction's name and whether it must be visible (true), invisible (false), or either (null). */
    static final Map<String, Boolean> expected = new java.util.LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> props = new HashMap<>(Map.of(
                "aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "1",
                "transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000",
                // A short session, so a killed broker's partitions move within seconds; its WAL in
                // object storage, so a live broker recovers what it acknowledged.
                "broker.session.timeout.ms", "3000",
                "broker.heartbeat.interval.ms", "500"));
        props.put("wal.url", "file://" + Files.createDirectories(dir.resolve("wal-objects")).toAbsolutePath());
        cluster = TestCluster.start(dir, 3, 0, props);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> p = producer("warm-up")) {
            p.initTransactions(); // creates __transaction_state
        }
        coordinator = cluster.leader(STATE_TOPIC, 0);
        List<Integer> others = new ArrayList<>(List.of(1, 2, 3));
        others.remove(Integer.valueOf(coordinator));
        try (Admin admin = admin()) {
            for (int p = 0; p < PARTITIONS; p++) {
                int target = others.get(p % 2);
                if (cluster.leader(TOPIC, p) != target) {
                    admin.alterPartitionReassignments(Map.of(new TopicPartition(TOPIC, p),
                            Optional.of(new NewPartitionReassignment(List.of(target))))).all()
                            .get(60, TimeUnit.SECONDS);
                }
                cluster.awaitLeader(TOPIC, p, target, "spreading the topic off the coordinator");
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000));
    }

    private static KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "90000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "90000");
        // An open transaction whose producer gave up is aborted by the coordinator within seconds.
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "15000");
        return new KafkaProducer<>(p);
    }

    /** Two records "name-P-0", "name-P-1" to each partition P, each acknowledged. */
    private static void sendToEach(KafkaProducer<String, String> producer, String name) throws Exception {
        for (int i = 0; i < 2; i++) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord<>(TOPIC, p, null, name + "-" + p + "-" + i)).get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Every partition as a read_committed consumer sees it, once no transaction is open any more
     * (the last stable offset has reached the high watermark everywhere): the values in order.
     */
    private static Map<Integer, List<String>> readCommitted() throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            tps.add(new TopicPartition(TOPIC, i));
        }
        Map<Integer, List<String>> out = new HashMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p); Admin admin = admin()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            Map<TopicPartition, Long> stable;
            while (true) {
                stable = c.endOffsets(tps); // read_committed: the last stable offsets
                Map<TopicPartition, Long> high = highWatermarks(admin, tps);
                if (stable.equals(high)) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "a transaction stays open: last stable offsets " + stable
                        + ", high watermarks " + high);
                TimeUnit.MILLISECONDS.sleep(200);
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            for (TopicPartition tp : tps) {
                out.put(tp.partition(), new ArrayList<>());
            }
            Map<TopicPartition, Long> end = stable;
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "positions never reached " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.get(r.partition()).add(r.value());
                }
            }
        }
        return out;
    }

    private static Map<TopicPartition, Long> highWatermarks(Admin admin, List<TopicPartition> tps) throws Exception {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
        tps.forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, r) -> out.put(tp, r.offset()));
        return out;
    }

    /**
     * Checks what read_committed shows against {@link #expected}: per partition exactly the
     * records of the visible transactions, in the order they were written; a transaction whose
     * outcome the test cannot know (null) is either complete in every partition or absent from all.
     */
    private static void assertAllOrNothing(String when) throws Exception {
        Map<Integer, List<String>> read = readCommitted();
        Map<String, Boolean> visible = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Boolean> t : expected.entrySet()) {
            int seen = 0;
            for (List<String> values : read.values()) {
                seen += (int) values.stream().filter(v -> v.startsWith(t.getKey() + "-")).count();
            }
            assertTrue(seen == 0 || seen == 2 * PARTITIONS, when + ": transaction " + t.getKey() + " partly visible ("
                    + seen + " of " + 2 * PARTITIONS + " records): " + read);
            if (t.getValue() != null) {
                assertEquals(t.getValue(), seen > 0, when + ": transaction " + t.getKey() + " " + read);
            }
            visible.put(t.getKey(), seen > 0);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> want = new ArrayList<>();
            for (Map.Entry<String, Boolean> t : visible.entrySet()) {
                if (t.getValue()) {
                    want.add(t.getKey() + "-" + p + "-0");
                    want.add(t.getKey() + "-" + p + "-1");
                }
            }
            assertEquals(want, read.get(p), when + ": partition " + p);
        }
    }

    /**
     * The coordinator epoch partition 0 last saw in a marker of {@code transactionalId}'s producer
     * (DescribeProducers), once no transaction of it is open there.
     */
    private static int coordinatorEpochSeen(String transactionalId) throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Admin admin = admin()) {
            long pid = admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                    .get(60, TimeUnit.SECONDS).producerId();
            while (true) {
                Optional<org.apache.kafka.clients.admin.ProducerState> s = admin.describeProducers(List.of(tp))
                        .partitionResult(tp).get(60, TimeUnit.SECONDS).activeProducers().stream()
                        .filter(p -> p.producerId() == pid).findFirst();
                if (s.isPresent() && s.get().currentTransactionStartOffset().isEmpty()) {
                    return s.get().coordinatorEpoch().orElseThrow();
                }
                assertTrue(System.nanoTime() < deadline, tp + ": the transaction of " + transactionalId
                        + " stays open: " + s);
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    @Test
    @Order(1)
    void commitsAndAborts_acrossLeaders_readCommittedSeesExactlyTheCommitted() throws Exception {
        for (int p = 0; p < PARTITIONS; p++) {
            assertNotEquals(coordinator, cluster.leader(TOPIC, p), "partition " + p + " led by the coordinator");
        }
        try (KafkaProducer<String, String> producer = producer("tx-a")) {
            producer.initTransactions();
            for (int round = 0; round < 4; round++) {
                String name = "a" + round;
                producer.beginTransaction();
                sendToEach(producer, name);
                if (round % 2 == 0) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
                expected.put(name, round % 2 == 0);
            }
        }
        assertAllOrNothing("after commits and aborts");
    }

    /**
     * Offsets in transactions (TxnOffsetCommit), their group's {@code __consumer_offsets} partition
     * led by another broker than the transaction coordinator: its markers travel in WriteTxnMarkers
     * to that broker's group coordinator, which makes the committed transaction's offset the group's
     * and drops the aborted one's.
     */
    @Test
    @Order(2)
    void offsetsInTransactions_onAnotherBrokersGroupCoordinator_committedOrDroppedWithTheirTransaction()
            throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        String group;
        try (Admin admin = admin()) {
            try {
                admin.describeConsumerGroups(List.of("lookup")).all().get(60, TimeUnit.SECONDS); // makes the topic
            } catch (java.util.concurrent.ExecutionException e) {
                // GROUP_ID_NOT_FOUND once the lookup has made __consumer_offsets: all that was needed
            }
            int partitions = cluster.partitions("__consumer_offsets").size();
            int i = 0;
            while (cluster.leader("__consumer_offsets", io.aloft.broker.coordinator.CoordinatorTopic.partitionFor(
                    "g-" + i, partitions)) == coordinator) {
                i++;
            }
            group = "g-" + i;
        }
        try (KafkaProducer<String, String> producer = producer("tx-o")) {
            producer.initTransactions();
            producer.beginTransaction();
            sendToEach(producer, "o0");
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(5)), new ConsumerGroupMetadata(group));
            producer.commitTransaction();
            expected.put("o0", true);
            producer.beginTransaction();
            sendToEach(producer, "o1");
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(group));
            producer.abortTransaction();
            expected.put("o1", false);
        }
        try (Admin admin = admin()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (admin.describeTransactions(List.of("tx-o")).description("tx-o").get(60, TimeUnit.SECONDS).state()
                    != org.apache.kafka.clients.admin.TransactionState.COMPLETE_ABORT) {
                assertTrue(System.nanoTime() < deadline, "the abort's markers were never all written");
                TimeUnit.MILLISECONDS.sleep(100);
            }
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(60, TimeUnit.SECONDS).get(tp);
            assertEquals(5, committed == null ? -1 : committed.offset(), "group " + group + "'s offset");
        }
        assertAllOrNothing("after offsets in transactions");
    }

    @Test
    @Order(3)
    void partitionLeaderKilledMidTransaction_theTransactionIsAllOrNothing() throws Exception {
        int victim = cluster.leader(TOPIC, 0);
        assertNotEquals(coordinator, victim);
        KafkaProducer<String, String> producer = producer("tx-k");
        try {
            producer.initTransactions();
            producer.beginTransaction();
            sendToEach(producer, "k1");
            cluster.kill(victim); // after the sends, before the commit
            Boolean committed;
            try {
                producer.commitTransaction();
                committed = true;
            } catch (Exception e) {
                committed = null; // the producer's answer is lost or failed: all or nothing, either way
            }
            expected.put("k1", committed);
        } finally {
            producer.close(Duration.ofSeconds(5));
        }
        // The partition moved; a new transaction commits across the brokers left.
        try (KafkaProducer<String, String> again = producer("tx-k")) {
            again.initTransactions();
            again.beginTransaction();
            sendToEach(again, "k2");
            again.commitTransaction();
            expected.put("k2", true);
        }
        assertAllOrNothing("after the leader of partition 0 (broker " + victim + ") was killed");
        cluster.restart(victim);
    }

    @Test
    @Order(4)
    void coordinatorKilledWhileCommitting_theNextCoordinatorCompletes_nothingCommittedLost() throws Exception {
        int current = cluster.leader(STATE_TOPIC, 0);
        int epochBefore;
        KafkaProducer<String, String> producer = producer("tx-c");
        try {
            producer.initTransactions();
            producer.beginTransaction();
            sendToEach(producer, "c0");
            producer.commitTransaction(); // between transactions: this one must survive the kill
            expected.put("c0", true);
            epochBefore = coordinatorEpochSeen("tx-c");
            producer.beginTransaction();
            sendToEach(producer, "c1");
            CompletableFuture<Void> commit = CompletableFuture.runAsync(producer::commitTransaction);
            cluster.kill(current);
            Boolean committed;
            try {
                commit.get(120, TimeUnit.SECONDS);
                committed = true;
            } catch (Exception e) {
                committed = null;
            }
            expected.put("c1", committed);
        } finally {
            producer.close(Duration.ofSeconds(5));
        }
        // A new producer with the id: the next coordinator has loaded __transaction_state and ends c1 first.
        try (KafkaProducer<String, String> again = producer("tx-c")) {
            again.initTransactions();
            again.beginTransaction();
            sendToEach(again, "c2");
            again.commitTransaction();
            expected.put("c2", true);
        }
        assertNotEquals(current, cluster.leader(STATE_TOPIC, 0));
        // The new coordinator's markers carry the epoch it loaded the partition at, above the old one's.
        assertTrue(coordinatorEpochSeen("tx-c") > epochBefore, "coordinator epoch after the move: "
                + coordinatorEpochSeen("tx-c") + ", before: " + epochBefore);
        assertAllOrNothing("after the coordinator (broker " + current + ") was killed");
        cluster.restart(current);
    }
}
