package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Offsets in transactions (TxnOffsetCommit, issue 16) on one broker with transactions on, through
 * stock kafka-clients: a consume-transform-produce loop's {@code sendOffsetsToTransaction} makes its
 * offsets visible (to OffsetFetch, to the next consumer of the group) only when the transaction
 * commits; an abort leaves the offsets as they were; require_stable fetches get
 * UNSTABLE_OFFSET_COMMIT while the transaction is open; a broker restart replays pending and
 * committed transactional offsets alike.
 */
class TxnOffsetCommitTest {
    private static final String IN = "in";
    private static final String OUT = "out";
    private static final String GROUP = "ctp";
    private static final int PARTITIONS = 2;
    private static final Map<String, String> ENABLED = Map.of("aloft.transactions.enable", "true",
            "transaction.state.log.num.partitions", "2", "group.initial.rebalance.delay.ms", "0");

    @TempDir
    Path dir;

    /** With a classic group, and with a consumer group of KIP-848 (its member epoch fences the offsets). */
    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void consumeTransformProduce_offsetsVisibleOnlyOnceTheTransactionCommits(String protocol) throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED)) {
            createTopics(broker);
            produce(broker, 0, 10);
            try (KafkaConsumer<String, String> consumer = consumer(broker, protocol);
                    KafkaProducer<String, String> producer = producer(broker, "ctp-tx")) {
                producer.initTransactions();
                List<ConsumerRecord<String, String>> read = poll(consumer, 10);
                producer.beginTransaction();
                for (ConsumerRecord<String, String> r : read) {
                    producer.send(new ProducerRecord<>(OUT, r.partition(), r.key(), r.value().toUpperCase()));
                }
                producer.sendOffsetsToTransaction(nextOffsets(read), consumer.groupMetadata());
                // Pending: neither a plain fetch nor the consumer sees them; a stable fetch is told to wait.
                assertEquals(Map.of(), committed(broker));
                assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, stableFetch(broker).get(new TopicPartition(IN, 0)));
                // Admin does not wait on that answer: it leaves such partitions out (see stableCommitted).
                assertEquals(Map.of(), committed(broker, true));
                producer.commitTransaction();
                assertEquals(Map.of(new TopicPartition(IN, 0), 5L, new TopicPartition(IN, 1), 5L), stableCommitted(broker));
                assertEquals(Errors.NONE, stableFetch(broker).get(new TopicPartition(IN, 0)));
            }
            // The group's next consumer starts at the committed offsets: it reads only what comes after.
            produce(broker, 10, 4);
            try (KafkaConsumer<String, String> next = consumer(broker, protocol)) {
                List<String> values = poll(next, 4).stream().map(ConsumerRecord::value).sorted().toList();
                assertEquals(List.of("v10", "v11", "v12", "v13"), values);
            }
        }
    }

    @Test
    void abort_leavesTheOffsetsCommittedBefore() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED)) {
            createTopics(broker);
            produce(broker, 0, 10);
            try (KafkaConsumer<String, String> consumer = consumer(broker);
                    KafkaProducer<String, String> producer = producer(broker, "ctp-abort")) {
                producer.initTransactions();
                List<ConsumerRecord<String, String>> read = poll(consumer, 10);
                consumer.commitSync(Map.of(new TopicPartition(IN, 0), new OffsetAndMetadata(2),
                        new TopicPartition(IN, 1), new OffsetAndMetadata(3)));
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(nextOffsets(read), consumer.groupMetadata());
                producer.abortTransaction();
                assertEquals(Map.of(new TopicPartition(IN, 0), 2L, new TopicPartition(IN, 1), 3L), stableCommitted(broker));
                assertEquals(Errors.NONE, stableFetch(broker).get(new TopicPartition(IN, 0)));
                // The next transaction of the same producer commits its offsets.
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(IN, 0), new OffsetAndMetadata(4)),
                        consumer.groupMetadata());
                producer.commitTransaction();
                assertEquals(Map.of(new TopicPartition(IN, 0), 4L, new TopicPartition(IN, 1), 3L), stableCommitted(broker));
            }
        }
    }

    /**
     * Before the restart: one transaction committed its offsets, a second left its offsets pending.
     * After: the committed ones are there, the pending ones still pending (UNSTABLE_OFFSET_COMMIT);
     * the coordinator aborts the abandoned transaction on its timeout and the pending offsets go.
     * A new transaction of the same id then commits over the replayed state.
     */
    @Test
    void restart_replaysCommittedAndPendingTransactionalOffsets() throws Exception {
        Map<String, String> settings = new HashMap<>(ENABLED);
        settings.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200");
        TestBroker broker = new TestBroker(dir, settings);
        try {
            createTopics(broker);
            Properties p = producerProps(broker, "ctp-restart");
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "3000");
            KafkaProducer<String, String> producer = new KafkaProducer<>(p);
            try {
                producer.initTransactions();
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(IN, 0), new OffsetAndMetadata(7)),
                        new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(GROUP));
                producer.commitTransaction();
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(IN, 0), new OffsetAndMetadata(9),
                        new TopicPartition(IN, 1), new OffsetAndMetadata(1)),
                        new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(GROUP));
            } finally {
                producer.close(Duration.ZERO); // abandoned: its transaction stays open
            }
            assertEquals(Map.of(new TopicPartition(IN, 0), 7L), committed(broker));
        } finally {
            broker.close();
        }
        broker = broker.restart();
        try {
            assertEquals(Map.of(new TopicPartition(IN, 0), 7L), committed(broker));
            // Pending after the replay (see the test below) until the coordinator's timeout aborts it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (stableFetch(broker).get(new TopicPartition(IN, 0)) != Errors.NONE) {
                assertTrue(System.nanoTime() < deadline, "the abandoned transaction was never aborted");
                Thread.sleep(100);
            }
            assertEquals(Map.of(new TopicPartition(IN, 0), 7L), committed(broker));
            try (KafkaProducer<String, String> again = producer(broker, "ctp-restart")) {
                again.initTransactions();
                again.beginTransaction();
                again.sendOffsetsToTransaction(Map.of(new TopicPartition(IN, 1), new OffsetAndMetadata(2)),
                        new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(GROUP));
                again.commitTransaction();
            }
            assertEquals(Map.of(new TopicPartition(IN, 0), 7L, new TopicPartition(IN, 1), 2L), stableCommitted(broker));
        } finally {
            broker.close();
        }
        // And once more from the log: the committed transactional offsets, the aborted ones gone.
        broker = broker.restart();
        try {
            assertEquals(Map.of(new TopicPartition(IN, 0), 7L, new TopicPartition(IN, 1), 2L), committed(broker));
            assertEquals(Errors.NONE, stableFetch(broker).get(new TopicPartition(IN, 1)));
        } finally {
            broker.close();
        }
    }

    /**
     * A transaction open across a restart commits after it (its producer's EndTxn): the offsets
     * replayed as pending become committed.
     */
    @Test
    void restart_withATransactionOpen_itsCommitAfterwardsMaterializesTheReplayedOffsets() throws Exception {
        TestBroker broker = new TestBroker(dir, ENABLED);
        long producerId;
        short epoch;
        try {
            createTopics(broker);
            KafkaProducer<String, String> producer = producer(broker, "ctp-open");
            try {
                producer.initTransactions();
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(IN, 1), new OffsetAndMetadata(5)),
                        new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(GROUP));
                org.apache.kafka.clients.admin.TransactionDescription d;
                try (Admin admin = Admin.create(broker.clientProps())) {
                    d = admin.describeTransactions(List.of("ctp-open")).description("ctp-open")
                            .get(30, TimeUnit.SECONDS);
                }
                producerId = d.producerId();
                epoch = (short) d.producerEpoch();
            } finally {
                producer.close(Duration.ZERO); // a graceful close would abort the open transaction
            }
        } finally {
            broker.close();
        }
        broker = broker.restart();
        try {
            assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, stableFetch(broker).get(new TopicPartition(IN, 1)));
            assertEquals(Map.of(), committed(broker));
            // The producer's EndTxn, sent as it would after the restart: the markers commit the replayed offsets.
            try (RawKafkaClient raw = new RawKafkaClient(broker.bootstrap())) {
                findCoordinator(raw, (byte) 1, "ctp-open");
                EndTxnResponse ended = raw.send(new EndTxnRequest.Builder(new EndTxnRequestData()
                        .setTransactionalId("ctp-open").setProducerId(producerId).setProducerEpoch(epoch)
                        .setCommitted(true), false).build((short) 4));
                assertEquals(Errors.NONE, ended.error());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!committed(broker).equals(Map.of(new TopicPartition(IN, 1), 5L))) {
                assertTrue(System.nanoTime() < deadline, "never committed: " + committed(broker));
                Thread.sleep(100);
            }
            assertEquals(Errors.NONE, stableFetch(broker).get(new TopicPartition(IN, 1)));
        } finally {
            broker.close();
        }
    }

    // ---- helpers -------------------------------------------------------------------------

    private static void createTopics(TestBroker broker) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1), new NewTopic(OUT, PARTITIONS,
                    (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Records v{from}..v{from+count-1}, alternating partitions. */
    private static void produce(TestBroker broker, int from, int count) throws Exception {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(IN, i % PARTITIONS, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(TestBroker broker) {
        return consumer(broker, "classic");
    }

    private static KafkaConsumer<String, String> consumer(TestBroker broker, String protocol) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(IN));
        return c;
    }

    private static List<ConsumerRecord<String, String>> poll(KafkaConsumer<String, String> c, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (out.size() < count) {
            assertTrue(System.nanoTime() < deadline, "read " + out.size() + " of " + count);
            c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(List<ConsumerRecord<String, String>> read) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (ConsumerRecord<String, String> r : read) {
            out.merge(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1),
                    (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return out;
    }

    private static KafkaProducer<String, String> producer(TestBroker broker, String transactionalId) {
        return new KafkaProducer<>(producerProps(broker, transactionalId));
    }

    private static Properties producerProps(TestBroker broker, String transactionalId) {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return p;
    }

    /** The group's committed offsets, through the Admin client (OffsetFetch without require_stable). */
    private static Map<TopicPartition, Long> committed(TestBroker broker) throws Exception {
        return committed(broker, false);
    }

    /**
     * The committed offsets once no transaction's offsets are pending. A transaction's markers are
     * written after EndTxn is answered, as in Kafka, so right after commitTransaction() (or
     * abortTransaction()) the offsets may still be pending for a few milliseconds. A require_stable
     * fetch then answers UNSTABLE_OFFSET_COMMIT for them, which KafkaConsumer retries but Admin does
     * not: kafka-clients' ListConsumerGroupOffsetsHandler skips a partition with an error ("Skipping
     * return offset"), so listConsumerGroupOffsets would return without them. So wait (bounded) until
     * the stable fetch answers NONE for {@link #IN}'s partitions, as a consumer would, then list.
     */
    private static Map<TopicPartition, Long> stableCommitted(TestBroker broker) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stableFetch(broker).containsValue(Errors.UNSTABLE_OFFSET_COMMIT)) {
            assertTrue(System.nanoTime() < deadline, "the transaction's offsets stayed pending (no marker applied)");
            Thread.sleep(20);
        }
        return committed(broker, true);
    }

    private static Map<TopicPartition, Long> committed(TestBroker broker, boolean stable) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            Map<TopicPartition, Long> out = new HashMap<>();
            admin.listConsumerGroupOffsets(Map.of(GROUP, new ListConsumerGroupOffsetsSpec()),
                            new ListConsumerGroupOffsetsOptions().requireStable(stable))
                    .partitionsToOffsetAndMetadata(GROUP).get(30, TimeUnit.SECONDS)
                    .forEach((tp, o) -> {
                        if (o != null) {
                            out.put(tp, o.offset());
                        }
                    });
            return out;
        }
    }

    /** FindCoordinator until the coordinator of {@code key} is there (its partition loaded, after a restart). */
    private static void findCoordinator(RawKafkaClient raw, byte keyType, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            FindCoordinatorResponse found = raw.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                    .setKeyType(keyType).setCoordinatorKeys(List.of(key))).build((short) 4));
            Errors error = Errors.forCode(found.data().coordinators().get(0).errorCode());
            if (error == Errors.NONE) {
                return;
            }
            assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, error);
            assertTrue(System.nanoTime() < deadline, "no coordinator for " + key);
            Thread.sleep(100);
        }
    }

    /** Each partition of {@link #IN}'s error in an OffsetFetch v8 with require_stable (KIP-447). */
    private static Map<TopicPartition, Errors> stableFetch(TestBroker broker) throws Exception {
        try (RawKafkaClient raw = new RawKafkaClient(broker.bootstrap())) {
            findCoordinator(raw, (byte) 0, GROUP);
            OffsetFetchRequestData data = new OffsetFetchRequestData().setRequireStable(true).setGroups(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(IN)
                                    .setPartitionIndexes(List.of(0, 1))))));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            OffsetFetchResponseData.OffsetFetchResponseGroup g;
            while (true) {
                OffsetFetchResponse r = raw.send(OffsetFetchRequest.Builder.forTopicNames(data, true).build((short) 8));
                g = r.data().groups().get(0);
                Errors error = Errors.forCode(g.errorCode());
                if (error == Errors.NONE) {
                    break;
                }
                // The group's partition still loading after a restart: the client's retriable answers.
                assertTrue(error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_LOAD_IN_PROGRESS,
                        error.name());
                assertTrue(System.nanoTime() < deadline, "the group's coordinator never loaded");
                Thread.sleep(100);
            }
            Map<TopicPartition, Errors> out = new HashMap<>();
            for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
                for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    out.put(new TopicPartition(t.name(), p.partitionIndex()), Errors.forCode(p.errorCode()));
                }
            }
            return out;
        }
    }
}
