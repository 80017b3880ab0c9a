package io.aloft.broker;

import static io.aloft.broker.TransactionalClients.describe;
import static io.aloft.broker.TransactionalClients.producer;
import static io.aloft.broker.TransactionalClients.readUpTo;
import static io.aloft.broker.TransactionalClients.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions end to end on one broker with {@code aloft.transactions.enable=true} (issue 16, part
 * C), through stock kafka-clients: commit and abort over three partitions as read_committed and
 * read_uncommitted consumers see them, fencing by a second producer with the same transactional id,
 * and the coordinator's state across a broker restart.
 */
class TransactionsTest {
    private static final String TOPIC = "txn";
    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition(TOPIC, 0),
            new TopicPartition(TOPIC, 1), new TopicPartition(TOPIC, 2));
    /** Few __transaction_state partitions: each is a log to open and load. */
    private static final Map<String, String> ENABLED = Map.of("aloft.transactions.enable", "true",
            "transaction.state.log.num.partitions", "4");

    @TempDir
    Path dir;

    @Test
    void commitThenAbort_readCommittedSeesTheCommitted_readUncommittedSeesBoth() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED)) {
            createTopic(broker);
            try (KafkaProducer<String, String> producer = producer(broker, "tx-1")) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEach(producer, "committed");
                producer.commitTransaction();
                producer.beginTransaction();
                sendToEach(producer, "aborted");
                producer.abortTransaction();
            }
            // Each partition: a committed record, its COMMIT marker, an aborted record, its ABORT marker.
            assertEquals(Set.of("committed-0", "committed-1", "committed-2"),
                    Set.copyOf(readAll(broker, "read_committed", 4)));
            assertEquals(Set.of("committed-0", "committed-1", "committed-2", "aborted-0", "aborted-1", "aborted-2"),
                    Set.copyOf(readAll(broker, "read_uncommitted", 4)));
        }
    }

    @Test
    void secondProducerWithTheSameId_fencesTheFirst() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED)) {
            createTopic(broker);
            try (KafkaProducer<String, String> first = producer(broker, "tx-f");
                    KafkaProducer<String, String> second = producer(broker, "tx-f")) {
                first.initTransactions();
                first.beginTransaction();
                sendToEach(first, "first");
                first.commitTransaction();
                second.initTransactions(); // bumps the epoch: the first producer's is stale now
                first.beginTransaction();
                // KIP-890: the partition's leader checks the zombie's first batch with the coordinator,
                // which answers PRODUCER_FENCED, and the produce INVALID_PRODUCER_EPOCH (as Kafka's leaders
                // do; TransactionVerificationOracleTest compares with Kafka); the EndTxn is fenced.
                Exception e = assertThrows(Exception.class, () -> sendToEach(first, "zombie"));
                // (At version 1 the client's AddPartitionsToTxn is fenced first: ProducerFencedException.)
                assertTrue(causedBy(e, InvalidProducerEpochException.class) || causedBy(e, ProducerFencedException.class),
                        e.toString());
                Exception end = assertThrows(Exception.class, first::abortTransaction);
                assertTrue(causedBy(end, ProducerFencedException.class), end.toString());
                second.beginTransaction();
                sendToEach(second, "second");
                second.commitTransaction();
            }
            List<String> read = readAll(broker, "read_committed", 4);
            assertEquals(Set.of("first-0", "first-1", "first-2", "second-0", "second-1", "second-2"), Set.copyOf(read));
        }
    }

    @Test
    void restart_keepsTheCoordinatorsState_producerIdAndEpochGoOn() throws Exception {
        TestBroker broker = new TestBroker(dir, ENABLED);
        TransactionDescription before;
        try {
            createTopic(broker);
            try (KafkaProducer<String, String> producer = producer(broker, "tx-r")) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEach(producer, "before");
                producer.commitTransaction();
            }
            before = describe(broker, "tx-r");
        } finally {
            broker.close();
        }
        broker = broker.restart();
        try {
            try (KafkaProducer<String, String> producer = producer(broker, "tx-r")) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEach(producer, "after");
                producer.commitTransaction();
            }
            TransactionDescription after = describe(broker, "tx-r");
            assertEquals(before.producerId(), after.producerId());
            // Transaction version 2 (the default): InitProducerId bumps the epoch, and so does every EndTxn.
            assertEquals(before.producerEpoch() + 2, after.producerEpoch());
            try (Admin admin = Admin.create(broker.clientProps())) {
                assertTrue(admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                        .map(TransactionListing::transactionalId).anyMatch("tx-r"::equals));
            }
            assertEquals(Set.of("before-0", "before-1", "before-2", "after-0", "after-1", "after-2"),
                    Set.copyOf(readAll(broker, "read_committed", 4)));
        } finally {
            broker.close();
        }
    }

    @Test
    void apiVersions_advertisesTheTransactionApis_inKafka43sRanges() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED); RawKafkaClient raw = new RawKafkaClient(broker.bootstrap())) {
            ApiVersionsResponse r = raw.send(new ApiVersionsRequest.Builder().build());
            ApiVersionsResponseData.ApiVersionCollection keys = r.data().apiKeys();
            assertEquals(5, keys.find(ApiKeys.ADD_PARTITIONS_TO_TXN.id).maxVersion()); // v4+: broker to broker
            assertEquals(5, keys.find(ApiKeys.END_TXN.id).maxVersion()); // v5: transaction version 2
            assertEquals(5, keys.find(ApiKeys.INIT_PRODUCER_ID.id).maxVersion()); // v6 (KIP-939) off, as in Kafka
            assertEquals(4, keys.find(ApiKeys.ADD_OFFSETS_TO_TXN.id).maxVersion());
            assertEquals(0, keys.find(ApiKeys.DESCRIBE_TRANSACTIONS.id).maxVersion());
            assertEquals(2, keys.find(ApiKeys.LIST_TRANSACTIONS.id).maxVersion());
            assertEquals(5, keys.find(ApiKeys.TXN_OFFSET_COMMIT.id).maxVersion()); // v5: transaction version 2
            assertEquals(1, keys.find(ApiKeys.WRITE_TXN_MARKERS.id).minVersion()); // as Kafka 4.3: v1-2
            assertEquals(2, keys.find(ApiKeys.WRITE_TXN_MARKERS.id).maxVersion());
        }
    }

    /** A marker for a partition that no longer exists counts as written: the commit completes. */
    @Test
    void commit_afterTheTopicIsDeleted_completes() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED); Admin admin = Admin.create(broker.clientProps())) {
            createTopic(broker);
            try (KafkaProducer<String, String> producer = producer(broker, "tx-d")) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEach(producer, "gone");
                admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
                producer.commitTransaction();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            TransactionState state;
            while ((state = describe(broker, "tx-d").state()) != TransactionState.COMPLETE_COMMIT) {
                assertTrue(System.nanoTime() < deadline, "still " + state);
                Thread.onSpinWait();
            }
        }
    }

    private static void createTopic(TestBroker broker) throws Exception {
        TransactionalClients.createTopic(broker, TOPIC, PARTITIONS.size());
    }

    /** One record "prefix-N" to each partition N, waiting for each. */
    private static void sendToEach(KafkaProducer<String, String> producer, String prefix) throws Exception {
        TransactionalClients.sendToEach(producer, PARTITIONS, prefix);
    }

    /** Reads every partition from the start until each position reaches {@code end}; the values. */
    private static List<String> readAll(TestBroker broker, String isolation, long end) {
        Map<TopicPartition, Long> ends = new java.util.HashMap<>();
        PARTITIONS.forEach(tp -> ends.put(tp, end));
        return values(readUpTo(broker, isolation, ends));
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
