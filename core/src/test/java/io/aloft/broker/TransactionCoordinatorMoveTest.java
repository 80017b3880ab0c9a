package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
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
 * The transaction coordinator moved by reassignment (issue 16): {@code __transaction_state-0}
 * reassigned to another broker (Admin.alterPartitionReassignments, as
 * {@code kafka-reassign-partitions.sh} does; Kafka allows it for internal topics) while a stock
 * transactional producer is in the middle of a transaction whose partitions three brokers lead. The
 * old broker unloads the partition's state, the new one loads it at a higher coordinator epoch (its
 * leader epoch), and the producer finds it (NOT_COORDINATOR, then FindCoordinator): a commit or abort
 * sent after the move ends the transaction all or nothing; a commit whose markers are still waiting
 * (their partition's leader paused) when the partition moves is completed by the new coordinator.
 * After each move the producer goes on, a second instance with the id fences the first, and
 * describeTransactions answers from the new coordinator. {@link TransactionsClusterTest} covers
 * the SIGKILL failover of the coordinator. The tests share one cluster and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TransactionCoordinatorMoveTest {
    private static final String TOPIC = "txn-move";
    private static final int PARTITIONS = 3;
    private static final String STATE_TOPIC = "__transaction_state";
    private static final TopicPartition STATE = new TopicPartition(STATE_TOPIC, 0);

    @TempDir
    static Path dir;
    static TestCluster cluster;
    /** Every transaction's name and whether it must be visible. */
    static final Map<String, Boolean> expected = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> props = new HashMap<>(Map.of(
                "aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "1",
                // Longer than the pause of a partition's leader below, so the pause moves nothing.
                "broker.session.timeout.ms", "15000",
                "broker.heartbeat.interval.ms", "500"));
        props.put("wal.url", "file://" + Files.createDirectories(dir.resolve("wal-objects")).toAbsolutePath());
        cluster = TestCluster.start(dir, 3, 0, props);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            // Partition P on broker P+1: every broker leads one, so markers go to all three.
            for (int p = 0; p < PARTITIONS; p++) {
                move(admin, new TopicPartition(TOPIC, p), p + 1);
            }
        }
        try (KafkaProducer<String, String> p = producer("warm-up")) {
            p.initTransactions(); // creates __transaction_state
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

    private static void move(Admin admin, TopicPartition tp, int to) throws Exception {
        if (cluster.leader(tp.topic(), tp.partition()) != to) {
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(to)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        cluster.awaitLeader(tp.topic(), tp.partition(), to, "moving " + tp);
    }

    /**
     * Reassigns __transaction_state-0 from its leader to {@code to}; returns once Metadata shows the
     * move, on the old leader too: until that broker has applied the move it is still the
     * coordinator and may itself end a transaction sent to it (correctly, with its own epoch), which
     * is not the case these tests are about.
     */
    private static void moveCoordinator(int to) throws Exception {
        int from = cluster.leader(STATE.topic(), STATE.partition());
        try (Admin admin = admin()) {
            move(admin, STATE, to);
        }
        if (from == to) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (RawKafkaClient old = new RawKafkaClient(cluster.bootstrap(from))) {
            while (true) {
                org.apache.kafka.common.requests.MetadataResponse m = old.send(
                        new org.apache.kafka.common.requests.MetadataRequest.Builder(List.of(STATE.topic()), false)
                                .build((short) 12));
                boolean moved = m.data().topics().stream().flatMap(t -> t.partitions().stream())
                        .anyMatch(pm -> pm.partitionIndex() == STATE.partition() && pm.leaderId() == to);
                if (moved) {
                    return;
                }
                assertTrue(System.nanoTime() < deadline, "broker " + from + " still names another leader of " + STATE);
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
    }

    private static KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
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

    private static void transaction(KafkaProducer<String, String> producer, String name) throws Exception {
        producer.beginTransaction();
        sendToEach(producer, name);
        producer.commitTransaction();
        expected.put(name, true);
    }

    /** A broker other than {@code a} and {@code b}. */
    private static int otherThan(int a, int b) {
        for (int id = 1; id <= 3; id++) {
            if (id != a && id != b) {
                return id;
            }
        }
        throw new AssertionError();
    }

    /** describeTransactions of {@code id} once it is in {@code state} (bounded wait). */
    private static TransactionDescription awaitState(Admin admin, String id, TransactionState state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            TransactionDescription d = admin.describeTransactions(List.of(id)).description(id)
                    .get(60, TimeUnit.SECONDS);
            if (d.state() == state) {
                return d;
            }
            assertTrue(System.nanoTime() < deadline, id + " never reached " + state + ": " + d);
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /**
     * The coordinator epoch of the last marker {@code producerId} wrote in partition 0, once no
     * transaction of it is open there (DescribeProducers).
     */
    private static int coordinatorEpochSeen(Admin admin, long producerId) throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Optional<ProducerState> s = admin.describeProducers(List.of(tp)).partitionResult(tp)
                    .get(60, TimeUnit.SECONDS).activeProducers().stream()
                    .filter(p -> p.producerId() == producerId).findFirst();
            if (s.isPresent() && s.get().currentTransactionStartOffset().isEmpty()) {
                return s.get().coordinatorEpoch().orElseThrow();
            }
            assertTrue(System.nanoTime() < deadline, tp + ": producer " + producerId + " stays open: " + s);
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /**
     * One transaction ended after its coordinator moved: a committed one before, then the move
     * between the sends and the end, then the end, the producer's next transaction, and a zombie.
     */
    private static void movedMidTransaction(String id, boolean commit) throws Exception {
        try (KafkaProducer<String, String> producer = producer(id); Admin admin = admin()) {
            producer.initTransactions();
            transaction(producer, id + "-before");
            int from = cluster.leader(STATE_TOPIC, 0);
            TransactionDescription before = awaitState(admin, id, TransactionState.COMPLETE_COMMIT);
            assertEquals(from, before.coordinatorId());
            int epochBefore = coordinatorEpochSeen(admin, before.producerId());

            producer.beginTransaction();
            sendToEach(producer, id + "-moved");
            int to = otherThan(from, from % 3 + 1);
            moveCoordinator(to); // after the sends, before the end
            if (commit) {
                producer.commitTransaction();
            } else {
                producer.abortTransaction();
            }
            expected.put(id + "-moved", commit);

            TransactionDescription after = awaitState(admin, id,
                    commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT);
            assertEquals(to, after.coordinatorId(), "the coordinator answering describeTransactions");
            assertEquals(before.producerId(), after.producerId());
            assertTrue(after.producerEpoch() > before.producerEpoch(), before + " then " + after);
            assertTrue(after.topicPartitions().isEmpty(), after.toString());
            // The new coordinator's markers carry its coordinator epoch (its leader epoch), above the old one's.
            int epochAfter = coordinatorEpochSeen(admin, after.producerId());
            assertTrue(epochAfter > epochBefore, "coordinator epoch " + epochBefore + " then " + epochAfter);

            transaction(producer, id + "-after"); // the producer goes on with the new coordinator
            try (KafkaProducer<String, String> successor = producer(id)) {
                successor.initTransactions(); // a new epoch from the new coordinator: the first is a zombie
                producer.beginTransaction();
                Exception e = assertThrows(Exception.class, () -> sendToEach(producer, id + "-zombie"));
                assertTrue(causedBy(e, InvalidProducerEpochException.class)
                        || causedBy(e, ProducerFencedException.class), e.toString());
                expected.put(id + "-zombie", false);
                transaction(successor, id + "-successor");
            }
        }
        assertAllOrNothing(id);
    }

    @Test
    @Order(1)
    void movedAfterTheSends_thenCommitted_allCommittedOnce() throws Exception {
        movedMidTransaction("tx-commit", true);
    }

    @Test
    @Order(2)
    void movedAfterTheSends_thenAborted_noneVisible() throws Exception {
        movedMidTransaction("tx-abort", false);
    }

    /**
     * Moved between EndTxn and its markers: one partition's leader paused (SIGSTOP) so the old
     * coordinator's markers cannot all be written, the commit answered (its PrepareCommit durable),
     * then the move; the new coordinator loads PrepareCommit and writes the markers itself once the
     * leader resumes. Deterministic: the transaction cannot complete while the leader is paused. The
     * paused broker is not the controller quorum's leader, so the move needs no election; while it
     * is paused the test talks to the other two over single sockets (an Admin could pick the paused
     * broker for its lookups and wait out its timeouts), reassigning with the same request Admin sends.
     */
    @Test
    @Order(3)
    void movedBetweenEndTxnAndItsMarkers_theNewCoordinatorCompletesTheCommit() throws Exception {
        String id = "tx-markers";
        int from = 1;
        moveCoordinator(from);
        int controller = cluster.controllerLeader();
        int paused = controller == 2 ? 3 : 2;
        int to = otherThan(from, paused);
        try (KafkaProducer<String, String> producer = producer(id);
                Admin admin = admin()) {
            producer.initTransactions();
            transaction(producer, id + "-before");
            long pid = awaitState(admin, id, TransactionState.COMPLETE_COMMIT).producerId();
            int epochBefore = coordinatorEpochSeen(admin, pid);
            producer.beginTransaction();
            sendToEach(producer, id + "-moved");
            cluster.pause(paused);
            try {
                producer.commitTransaction(); // answered once PrepareCommit is durable
                expected.put(id + "-moved", true);
                assertEquals("PrepareCommit", describeOn(from, id), "markers to the paused broker " + paused + " wait");
                try (RawKafkaClient raw = new RawKafkaClient(cluster.bootstrap(to))) {
                    AlterPartitionReassignmentsResponse moved = raw.send(new AlterPartitionReassignmentsRequest.Builder(
                            new AlterPartitionReassignmentsRequestData().setTimeoutMs(10_000).setTopics(List.of(
                                    new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName(STATE_TOPIC)
                                            .setPartitions(List.of(new AlterPartitionReassignmentsRequestData
                                                    .ReassignablePartition().setPartitionIndex(0)
                                                    .setReplicas(List.of(to))))))).build((short) 0));
                    assertEquals(java.util.Set.of(Errors.NONE), moved.errorCounts().keySet(), moved.data().toString());
                }
                // The new coordinator loads PrepareCommit; its markers wait for the paused broker too.
                assertEquals("PrepareCommit", describeOn(to, id), "loaded by broker " + to);
            } finally {
                cluster.resume(paused);
            }
            TransactionDescription done = awaitState(admin, id, TransactionState.COMPLETE_COMMIT);
            assertEquals(to, done.coordinatorId());
            int epochAfter = coordinatorEpochSeen(admin, pid);
            assertTrue(epochAfter > epochBefore, "coordinator epoch " + epochBefore + " then " + epochAfter);
            transaction(producer, id + "-after");
        }
        assertAllOrNothing(id);
    }

    /**
     * The state of {@code id} as broker {@code broker} describes it, once it coordinates it (bounded
     * wait): one socket to that broker, since an Admin could pick the paused one for its lookups.
     */
    private static String describeOn(int broker, String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (RawKafkaClient raw = new RawKafkaClient(cluster.bootstrap(broker))) {
            while (true) {
                DescribeTransactionsResponse r = raw.send(new DescribeTransactionsRequest.Builder(
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of(id))).build((short) 0));
                DescribeTransactionsResponseData.TransactionState s = r.data().transactionStates().get(0);
                if (s.errorCode() == Errors.NONE.code()) {
                    return s.transactionState();
                }
                assertTrue(System.nanoTime() < deadline, "broker " + broker + " never coordinated " + id + ": "
                        + Errors.forCode(s.errorCode()));
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * read_committed, once no transaction is open: per partition exactly the records of the visible
     * transactions of {@link #expected}, in order, each once.
     */
    private static void assertAllOrNothing(String when) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        List<TopicPartition> tps = new ArrayList<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < PARTITIONS; i++) {
            tps.add(new TopicPartition(TOPIC, i));
            latest.put(tps.get(i), OffsetSpec.latest());
        }
        Map<Integer, List<String>> read = new HashMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p); Admin admin = admin()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Map<TopicPartition, Long> stable;
            while (true) {
                stable = c.endOffsets(tps);
                Map<TopicPartition, Long> high = new HashMap<>();
                admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, r) -> high.put(tp, r.offset()));
                if (stable.equals(high)) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, when + ": a transaction stays open: last stable offsets "
                        + stable + ", high watermarks " + high);
                TimeUnit.MILLISECONDS.sleep(100);
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            tps.forEach(tp -> read.put(tp.partition(), new ArrayList<>()));
            Map<TopicPartition, Long> end = stable;
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                assertTrue(System.nanoTime() < deadline, when + ": positions never reached " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    read.get(r.partition()).add(r.value());
                }
            }
        }
        for (int part = 0; part < PARTITIONS; part++) {
            List<String> want = new ArrayList<>();
            for (Map.Entry<String, Boolean> t : expected.entrySet()) {
                if (t.getValue()) {
                    want.add(t.getKey() + "-" + part + "-0");
                    want.add(t.getKey() + "-" + part + "-1");
                }
            }
            assertEquals(want, read.get(part), when + ": partition " + part);
        }
    }
}
