package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.conformance.RawConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Apache Kafka 4.3.1's {@code kafka-transactions.sh} (org.apache.kafka.tools.TransactionsCommand),
 * run as a child process against one broker with {@code aloft.transactions.enable=true} (issue 16):
 * {@code list} (with its duration and id pattern filters), {@code describe}, {@code describe-producers}
 * {@code find-hanging} and {@code abort}, on transactions made by kafka-clients and, for a hanging one, by raw
 * requests: a transactional batch written to a partition its coordinator never heard of, as a
 * producer that wrote it and vanished before KIP-890's verification leaves one. Exit status, the
 * tables the tool prints and, where the tool changes something, the effect on read_committed
 * consumers are checked.
 */
class TransactionsCliTest {
    private static final String TRANSACTIONS = "org.apache.kafka.tools.TransactionsCommand";
    /**
     * At transaction version 1 (the describe-producers rows below expect no epoch bump by markers)
     * and without KIP-890's verification, which refuses the coordinator-less write that makes a
     * hanging transaction (as Kafka 4.3.1 does with it on: see TransactionVerificationOracleTest).
     */
    private static final Map<String, String> ENABLED = Map.of("aloft.transactions.enable", "true",
            "transaction.state.log.num.partitions", "4", "aloft.transaction.version", "1",
            "transaction.partition.verification.enable", "false");

    @RegisterExtension
    static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(ENABLED);

    private static KafkaCli.Result transactions(String... args) throws Exception {
        return cli.runOnBroker(TRANSACTIONS, args);
    }

    /** The rows of a table the tool printed, each split on its column gaps (header first). */
    private static List<List<String>> table(KafkaCli.Result r) {
        return r.lines().stream().filter(l -> !l.isBlank()).map(l -> Arrays.asList(l.trim().split("\\s+"))).toList();
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        cli.admin().createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    private static KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cli.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "300000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    @Test
    void listDescribeDescribeProducers_committedAndOpenTransactions() throws Exception {
        String topic = "cli-txn";
        createTopic(topic, 2);
        String node = Integer.toString(cli.broker().broker().nodeId());
        try (KafkaProducer<String, String> committed = producer("cli-tx-committed");
                KafkaProducer<String, String> open = producer("cli-tx-open")) {
            committed.initTransactions();
            committed.beginTransaction();
            committed.send(new ProducerRecord<>(topic, 0, "k", "committed")).get(30, TimeUnit.SECONDS);
            committed.commitTransaction();
            open.initTransactions();
            open.beginTransaction();
            open.send(new ProducerRecord<>(topic, 1, "k", "open-1")).get(30, TimeUnit.SECONDS);
            open.send(new ProducerRecord<>(topic, 1, "k", "open-2")).get(30, TimeUnit.SECONDS);
            String committedId = producerIdOf("cli-tx-committed");
            String openId = producerIdOf("cli-tx-open");

            KafkaCli.Result list = transactions("list");
            assertEquals(0, list.exitCode(), list.toString());
            List<List<String>> rows = table(list);
            assertEquals(List.of("TransactionalId", "Coordinator", "ProducerId", "TransactionState"), rows.get(0));
            assertTrue(rows.contains(List.of("cli-tx-committed", node, committedId, "CompleteCommit")), list.toString());
            assertTrue(rows.contains(List.of("cli-tx-open", node, openId, "Ongoing")), list.toString());

            KafkaCli.Result pattern = transactions("list", "--transactional-id-pattern", "cli-tx-o.*");
            assertEquals(0, pattern.exitCode(), pattern.toString());
            assertEquals(List.of("cli-tx-open", node, openId, "Ongoing"), table(pattern).get(1), pattern.toString());
            assertEquals(2, table(pattern).size(), pattern.toString());
            // Running longer than an hour: neither (both started moments ago).
            KafkaCli.Result longRunning = transactions("list", "--duration-filter", "3600000");
            assertEquals(0, longRunning.exitCode(), longRunning.toString());
            assertTrue(table(longRunning).stream().noneMatch(r -> r.get(0).startsWith("cli-tx-")),
                    longRunning.toString());

            KafkaCli.Result described = transactions("describe", "--transactional-id", "cli-tx-open");
            assertEquals(0, described.exitCode(), described.toString());
            assertEquals(List.of("CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
                    "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"),
                    table(described).get(0));
            List<String> row = table(described).get(1);
            assertEquals(List.of(node, "cli-tx-open", openId, "0", "Ongoing", "300000"), row.subList(0, 6),
                    described.toString());
            assertEquals(topic + "-1", row.get(8), described.toString());
            KafkaCli.Result unknown = transactions("describe", "--transactional-id", "cli-tx-none");
            assertEquals(1, unknown.exitCode(), unknown.toString());
            assertTrue(unknown.out().isBlank(), unknown.toString());

            // Partition 0: the committed producer, its transaction closed by a marker of coordinator epoch 0.
            List<String> producers0 = producers(topic, 0);
            assertEquals(List.of(committedId, "0", "0", "0"), producers0.subList(0, 4));
            assertEquals("None", producers0.get(5));
            // Partition 1: the open transaction, from its first offset; no marker yet.
            List<String> producers1 = producers(topic, 1);
            assertEquals(List.of(openId, "0", "-1", "1"), producers1.subList(0, 4));
            assertEquals("0", producers1.get(5));
            open.abortTransaction();
        }
    }

    /**
     * find-hanging reports an open transaction on a partition only when it is older than the
     * largest transaction timeout (15 minutes unless told) and its coordinator does not have it
     * open there: here a batch 30 minutes old written without AddPartitionsToTxn by a producer that
     * then vanished (hanging), beside one as old that its coordinator does know (not hanging). The
     * hanging one holds the partition's last stable offset back until it is aborted.
     */
    @Test
    void findHanging_reportsOnlyTheTransactionItsCoordinatorNeverHeardOf() throws Exception {
        String topic = "cli-hanging";
        createTopic(topic, 2);
        String node = Integer.toString(cli.broker().broker().nodeId());
        KafkaCli.Result none = findHanging(topic);
        assertEquals(List.of(HANGING_HEADER), table(none), none.toString());

        long halfAnHourAgo = System.currentTimeMillis() - Duration.ofMinutes(30).toMillis();
        try (KafkaProducer<String, String> known = producer("cli-hanging-known")) {
            known.initTransactions();
            known.beginTransaction();
            known.send(new ProducerRecord<>(topic, 1, halfAnHourAgo, "k", "known")).get(30, TimeUnit.SECONDS);
            KafkaCli.Result onlyKnown = findHanging(topic);
            assertEquals(List.of(HANGING_HEADER), table(onlyKnown), onlyKnown.toString());

            InitProducerIdResponseData lost = writeWithoutTheCoordinator(topic, 0, "cli-hanging-lost", halfAnHourAgo);
            KafkaCli.Result hanging = findHanging(topic);
            List<List<String>> rows = table(hanging);
            assertEquals(2, rows.size(), hanging.toString());
            assertEquals(List.of(topic, "0", Long.toString(lost.producerId()), Short.toString(lost.producerEpoch()),
                    "-1", "0", Long.toString(halfAnHourAgo)), rows.get(1).subList(0, 7), hanging.toString());
            // Within a larger timeout it could still be running: not reported.
            KafkaCli.Result patient = transactions("find-hanging", "--broker-id", node, "--topic", topic,
                    "--max-transaction-timeout", "60");
            assertEquals(List.of(HANGING_HEADER), table(patient), patient.toString());
            KafkaCli.Result byPartition = transactions("find-hanging", "--topic", topic, "--partition", "1");
            assertEquals(List.of(HANGING_HEADER), table(byPartition), byPartition.toString());

            // The hanging transaction holds read_committed readers of partition 0 before its first offset.
            assertEquals(0, lastStableOffset(new TopicPartition(topic, 0)));
            known.abortTransaction();
        }
    }

    /**
     * abort ends a hanging transaction from its first offset: the tool finds its producer with
     * DescribeProducers and sends the partition's leader an abort marker (WriteTxnMarkers). After it
     * the last stable offset passes the transaction, find-hanging reports nothing, and read_committed
     * consumers read the record written after it, but not the aborted one.
     */
    @Test
    void abort_endsAHangingTransaction_readCommittedPassesIt() throws Exception {
        String topic = "cli-abort";
        createTopic(topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        long halfAnHourAgo = System.currentTimeMillis() - Duration.ofMinutes(30).toMillis();
        InitProducerIdResponseData lost = writeWithoutTheCoordinator(topic, 0, "cli-abort-lost", halfAnHourAgo);
        try (KafkaProducer<String, String> plain = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                cli.bootstrap()), new StringSerializer(), new StringSerializer())) {
            plain.send(new ProducerRecord<>(topic, 0, "k", "after")).get(30, TimeUnit.SECONDS);
        }
        assertEquals(2, table(findHanging(topic)).size());
        assertEquals(0, lastStableOffset(tp));

        KafkaCli.Result aborted = transactions("abort", "--topic", topic, "--partition", "0", "--start-offset", "0");
        assertEquals(0, aborted.exitCode(), aborted.toString());
        // The lost record (0), the plain one (1), the abort marker (2).
        assertEquals(3, lastStableOffset(tp));
        assertEquals(List.of(HANGING_HEADER), table(findHanging(topic)));
        List<String> lostRow = producerRows(topic, 0).stream()
                .filter(r -> r.get(0).equals(Long.toString(lost.producerId()))).findFirst().orElseThrow();
        assertEquals("None", lostRow.get(5), lostRow.toString());
        assertEquals(List.of("after"), read(tp, "read_committed", 3));
        assertEquals(List.of("lost", "after"), read(tp, "read_uncommitted", 3));
        KafkaCli.Result again = transactions("abort", "--topic", topic, "--partition", "0", "--start-offset", "0");
        assertEquals(1, again.exitCode(), again.toString());
    }

    /** The values of a partition up to {@code end}, read from the start at that isolation level. */
    private static List<String> read(TopicPartition tp, String isolation, long end) {
        Properties p = cli.broker().clientProps();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
            assertTrue(consumer.position(tp) >= end, isolation + " stuck at " + consumer.position(tp));
        }
        return values;
    }

    private static final List<String> HANGING_HEADER = List.of("Topic", "Partition", "ProducerId", "ProducerEpoch",
            "CoordinatorEpoch", "StartOffset", "LastTimestamp", "Duration(min)");

    private static KafkaCli.Result findHanging(String topic) throws Exception {
        KafkaCli.Result r = transactions("find-hanging", "--broker-id",
                Integer.toString(cli.broker().broker().nodeId()), "--topic", topic);
        assertEquals(0, r.exitCode(), r.toString());
        return r;
    }

    /**
     * A transactional producer's first batch, written with raw requests and no AddPartitionsToTxn:
     * the partition has an open transaction its coordinator does not know of (a broker without
     * KIP-890's produce verification accepts it).
     */
    static InitProducerIdResponseData writeWithoutTheCoordinator(String topic, int partition, String transactionalId,
            long timestamp) throws Exception {
        try (RawConnection c = RawConnection.open(cli.bootstrap())) {
            // As a client does: FindCoordinator first (it creates __transaction_state on first use), then
            // InitProducerId until the coordinator is loaded.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            InitProducerIdResponseData id;
            do {
                c.send(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequestData().setKeyType((byte) 1)
                        .setKey(transactionalId));
                id = (InitProducerIdResponseData) c.send(ApiKeys.INIT_PRODUCER_ID, (short) 4,
                        new InitProducerIdRequestData().setTransactionalId(transactionalId)
                                .setTransactionTimeoutMs(60_000)).body();
            } while (Errors.forCode(id.errorCode()).exception() instanceof RetriableException
                    && System.nanoTime() < deadline && pause());
            assertEquals(Errors.NONE.code(), id.errorCode(), id.toString());
            MemoryRecords batch = MemoryRecords.withTransactionalRecords(Compression.NONE, id.producerId(),
                    id.producerEpoch(), 0, new SimpleRecord(timestamp, "k".getBytes(StandardCharsets.UTF_8),
                            "lost".getBytes(StandardCharsets.UTF_8)));
            ProduceRequestData.TopicProduceData data = new ProduceRequestData.TopicProduceData().setName(topic);
            data.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition)
                    .setRecords(batch));
            ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000)
                    .setTransactionalId(transactionalId);
            request.topicData().add(data);
            ProduceResponseData r = (ProduceResponseData) c.send(ApiKeys.PRODUCE, (short) 11, request).body();
            assertEquals(Errors.NONE.code(), r.responses().iterator().next().partitionResponses().get(0).errorCode(),
                    r.toString());
            return id;
        }
    }

    /** Between two polls of the broker's state (each poll has a deadline); true, to go on. */
    private static boolean pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        return true;
    }

    /** The offset a read_committed consumer cannot read past (ListOffsets latest, read_committed). */
    static long lastStableOffset(TopicPartition tp) throws Exception {
        return cli.admin().listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()),
                new org.apache.kafka.clients.admin.ListOffsetsOptions(
                        org.apache.kafka.common.IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
    }

    /** describe-producers' one row for the partition. */
    private static List<String> producers(String topic, int partition) throws Exception {
        List<List<String>> rows = producerRows(topic, partition);
        assertEquals(1, rows.size(), rows.toString());
        return rows.get(0);
    }

    /** describe-producers' rows for the partition, without the header. */
    private static List<List<String>> producerRows(String topic, int partition) throws Exception {
        KafkaCli.Result r = transactions("describe-producers", "--topic", topic, "--partition",
                Integer.toString(partition));
        assertEquals(0, r.exitCode(), r.toString());
        List<List<String>> rows = table(r);
        assertEquals(List.of("ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
                "CurrentTransactionStartOffset"), rows.get(0), r.toString());
        return rows.subList(1, rows.size());
    }

    private static String producerIdOf(String transactionalId) throws Exception {
        return Long.toString(cli.admin().describeTransactions(List.of(transactionalId)).description(transactionalId)
                .get(30, TimeUnit.SECONDS).producerId());
    }
}
