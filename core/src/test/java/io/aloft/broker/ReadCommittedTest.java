package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, the partition side, seen by Kafka's own clients: transactions are written straight into
 * the partition log (as a marker from a coordinator is: see WriteTxnMarkersTest), and a stock
 * read_committed consumer reads only committed records (Fetch's last stable offset and aborted
 * transactions), stops at an open transaction, finds the last stable offset as the end offset
 * (ListOffsets with isolation_level 1), while a read_uncommitted one reads everything; the Admin
 * client's DescribeProducers shows the open transaction's start. A read_committed fetch at the
 * last stable offset waits (the high watermark above it is no reason to answer at once) and is
 * answered once a marker moves it. And against Apache Kafka 4.3.1: the same layout of
 * transactions (written there by its transactional producer) answers alike, and stale markers are
 * refused with the errors Kafka's WriteTxnMarkers answers.
 */
class ReadCommittedTest {
    private static final String TOPIC = "txn";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;

    private static MemoryRecords records(long pid, boolean transactional, int seq, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(),
                    ("k-" + values[i]).getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8));
        }
        if (pid < 0) {
            return MemoryRecords.withRecords(Compression.NONE, records);
        }
        return transactional ? MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq, records)
                : MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, seq, records);
    }

    private static KafkaConsumer<String, String> consumer(TestBroker broker, String isolation) {
        KafkaConsumer<String, String> c = TransactionalClients.consumer(broker, isolation);
        c.assign(List.of(TP));
        c.seekToBeginning(List.of(TP));
        return c;
    }

    /** Polls until the position reaches {@code end}; the values read. */
    private static List<String> readUpTo(KafkaConsumer<String, String> c, long end) {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.position(TP) < end) {
            assertTrue(System.nanoTime() < deadline, "position " + c.position(TP) + " never reached " + end);
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                out.add(r.value());
            }
        }
        return out;
    }

    @Test
    void readCommittedConsumer_skipsAbortedRecords_stopsAtTheOpenTransaction() throws Exception {
        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, Map.of())) {
            aloft.append(records(-1, false, 0, "a"));                          // 0
            aloft.append(records(7, true, 0, "aborted-1", "aborted-2"));       // 1-2
            aloft.append(records(8, true, 0, "committed"));                    // 3
            aloft.marker(7, (short) 0, 0, false, (short) 0);                   // 4
            aloft.marker(8, (short) 0, 0, true, (short) 0);                    // 5
            aloft.append(records(-1, false, 0, "b"));                          // 6
            aloft.append(records(9, true, 0, "open"));                         // 7
            aloft.append(records(-1, false, 0, "c"));                          // 8
            assertEquals(7, aloft.log().lastStableOffset());
            assertEquals(9, aloft.log().highWatermark());

            try (KafkaConsumer<String, String> committed = consumer(aloft.broker(), "read_committed");
                    KafkaConsumer<String, String> uncommitted = consumer(aloft.broker(), "read_uncommitted")) {
                assertEquals(Map.of(TP, 7L), committed.endOffsets(List.of(TP)), "ListOffsets read_committed: the LSO");
                assertEquals(Map.of(TP, 9L), uncommitted.endOffsets(List.of(TP)));
                assertEquals(List.of("a", "committed", "b"), readUpTo(committed, 7));
                assertEquals(List.of("a", "aborted-1", "aborted-2", "committed", "b", "open", "c"),
                        readUpTo(uncommitted, 9));

                List<ProducerState> producers = aloft.admin().describeProducers(List.of(TP)).partitionResult(TP)
                        .get(30, TimeUnit.SECONDS).activeProducers();
                ProducerState open = producers.stream().filter(s -> s.producerId() == 9).findFirst().orElseThrow();
                assertEquals(7L, open.currentTransactionStartOffset().orElseThrow());
                ProducerState ended = producers.stream().filter(s -> s.producerId() == 8).findFirst().orElseThrow();
                assertTrue(ended.currentTransactionStartOffset().isEmpty());
                assertEquals(0, ended.coordinatorEpoch().orElseThrow());

                aloft.marker(9, (short) 0, 0, true, (short) 0); // 9
                assertEquals(List.of("open", "c"), readUpTo(committed, 10));
                assertEquals(Map.of(TP, 10L), committed.endOffsets(List.of(TP)));
            }
        }
    }

    /** A full read_committed Fetch (v12, by topic name) of partition 0 from {@code offset}. */
    private static FetchRequest readCommittedFetch(long offset, int maxWaitMs) {
        return readCommittedFetch(TOPIC, offset, maxWaitMs);
    }

    private static FetchRequest readCommittedFetch(String topic, long offset, int maxWaitMs) {
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1)
                .setMaxBytes(1 << 20).setIsolationLevel((byte) 1).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20)))));
        return new FetchRequest(data, (short) 12);
    }

    private static FetchResponseData.PartitionData only(FetchResponse r) {
        return r.data().responses().get(0).partitions().get(0);
    }

    @Test
    void readCommittedFetchAtTheLso_waitsDespiteDataAboveIt_andIsAnsweredOnceTheMarkerMovesIt() throws Exception {
        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, Map.of());
                RawKafkaClient raw = new RawKafkaClient(aloft.broker().bootstrap())) {
            aloft.append(records(7, true, 0, "t"));                            // 0
            aloft.append(records(-1, false, 0, "x"));                          // 1

            long start = System.nanoTime();
            FetchResponseData.PartitionData p = only(raw.send(readCommittedFetch(0, 500)));
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(0, p.errorCode());
            assertEquals(0, p.lastStableOffset());
            assertEquals(2, p.highWatermark());
            assertEquals(0, p.records().sizeInBytes());
            assertEquals(List.of(), p.abortedTransactions());
            assertTrue(waitedMs >= 400, "answered after " + waitedMs + " ms, not after max_wait_ms");

            CompletableFuture<FetchResponse> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return raw.send(readCommittedFetch(0, 30_000));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            aloft.marker(7, (short) 0, 0, false, (short) 0);                   // 2
            FetchResponseData.PartitionData woken = only(waiting.get(10, TimeUnit.SECONDS));
            assertEquals(3, woken.lastStableOffset());
            assertTrue(woken.records().sizeInBytes() > 0);
            assertEquals(List.of(new FetchResponseData.AbortedTransaction().setProducerId(7).setFirstOffset(0)),
                    woken.abortedTransactions());
        }
    }

    /**
     * What read_committed Fetches from each offset of {@code topic} answer, producer ids left out
     * (each broker issues its own): error, high watermark, last stable offset, base offsets of the
     * batches returned, first offsets of the aborted transactions listed.
     */
    private static List<String> readCommittedViews(String bootstrap, String topic, long end) throws Exception {
        List<String> views = new ArrayList<>();
        try (RawKafkaClient raw = new RawKafkaClient(bootstrap)) {
            for (long offset = 0; offset < end; offset++) {
                FetchResponseData.PartitionData p = only(raw.send(readCommittedFetch(topic, offset, 0)));
                List<Long> bases = new ArrayList<>();
                ((MemoryRecords) p.records()).batches().forEach(b -> bases.add(b.baseOffset()));
                List<Long> aborted = p.abortedTransactions() == null ? null
                        : p.abortedTransactions().stream().map(FetchResponseData.AbortedTransaction::firstOffset)
                                .toList();
                views.add("from " + offset + ": error=" + p.errorCode() + " hw=" + p.highWatermark() + " lso="
                        + p.lastStableOffset() + " batches=" + bases + " aborted=" + aborted);
            }
        }
        return views;
    }

    /** ListOffsets LATEST read_committed, and the open transaction's start DescribeProducers shows. */
    private static String offsetsView(Admin admin, TopicPartition tp) throws Exception {
        long latest = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()),
                new org.apache.kafka.clients.admin.ListOffsetsOptions(
                        org.apache.kafka.common.IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        List<Long> open = new ArrayList<>();
        for (ProducerState s : admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                .activeProducers()) {
            s.currentTransactionStartOffset().ifPresent(open::add);
        }
        return "latest read_committed=" + latest + " open transactions from " + open;
    }

    /** Waits (a ListOffsets round trip per try) until the high watermark of {@code tp} reaches {@code end}. */
    private static void awaitHighWatermark(Admin admin, TopicPartition tp, long end) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset() < end) {
            assertTrue(System.nanoTime() < deadline, "the high watermark of " + tp + " never reached " + end);
        }
    }

    private static MemoryRecords batch(long pid, short epoch, String value) {
        SimpleRecord r = new SimpleRecord(System.currentTimeMillis(), ("k-" + value).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
        return pid < 0 ? MemoryRecords.withRecords(Compression.NONE, r)
                : MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, 0, r);
    }

    /**
     * The same partition layout on Apache Kafka 4.3.1 (written by a real transactional producer)
     * and on Aloft (written into the log as the coordinator will, with transaction-version-2
     * markers): an aborted transaction at 0 (marker 1), a plain record at 2, a committed
     * transaction at 3 (marker 4), an open transaction at 5, a plain record at 6. Every
     * read_committed Fetch from 0 to 6, ListOffsets and DescribeProducers answer alike.
     */
    @Test
    void readCommitted_answersAsApacheKafka_forAbortedCommittedAndOpenTransactions() throws Exception {
        List<String> kafkaViews;
        String kafkaOffsets;
        try (OracleTransactions kafka = new OracleTransactions("rc-oracle-", Map.of(), true)) {
            kafka.transaction("aborted", false);
            awaitHighWatermark(kafka.admin, kafka.tp, 2); // markers are written after EndTxn answers
            kafka.send(kafka.plain, "plain");
            kafka.transaction("committed", true);
            awaitHighWatermark(kafka.admin, kafka.tp, 5);
            kafka.tx.beginTransaction();
            kafka.send(kafka.tx, "open");
            kafka.send(kafka.plain, "tail");
            kafkaViews = readCommittedViews(kafka.bootstrap, kafka.topic, 7);
            kafkaOffsets = offsetsView(kafka.admin, kafka.tp);
            kafka.tx.abortTransaction();
        }
        // What Kafka answered, so the comparison below cannot pass on two empty answers.
        assertEquals("from 0: error=0 hw=7 lso=5 batches=[0, 1, 2, 3, 4] aborted=[0]", kafkaViews.get(0));
        assertEquals("from 2: error=0 hw=7 lso=5 batches=[2, 3, 4] aborted=[]", kafkaViews.get(2));
        assertEquals("from 6: error=0 hw=7 lso=5 batches=[] aborted=[]", kafkaViews.get(6));
        assertEquals("latest read_committed=5 open transactions from [5]", kafkaOffsets);

        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, Map.of())) {
            short tv2 = 2;
            aloft.append(batch(7, (short) 0, "aborted"));         // 0
            aloft.marker(7, (short) 1, 0, false, tv2);            // 1
            aloft.append(batch(-1, (short) 0, "plain"));          // 2
            aloft.append(batch(7, (short) 1, "committed"));       // 3
            aloft.marker(7, (short) 2, 0, true, tv2);             // 4
            aloft.append(batch(7, (short) 2, "open"));            // 5
            aloft.append(batch(-1, (short) 0, "tail"));           // 6
            assertEquals(kafkaViews, readCommittedViews(aloft.broker().bootstrap(), TOPIC, 7));
            assertEquals(kafkaOffsets, offsetsView(aloft.admin(), TP));
        }
    }

    /** The log start offset (ListOffsets EARLIEST) and the read_committed offsets view. */
    private static String startAndOffsetsView(Admin admin, TopicPartition tp) throws Exception {
        long earliest = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.earliest()))
                .partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        return "earliest=" + earliest + " " + offsetsView(admin, tp);
    }

    private static void deleteRecordsBefore(Admin admin, TopicPartition tp, long offset) throws Exception {
        admin.deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(offset)))
                .all().get(30, TimeUnit.SECONDS);
    }

    /**
     * DeleteRecords past an open transaction's first offset and past an aborted transaction,
     * against Apache Kafka 4.3.1: an aborted transaction at 0 (marker 1), a plain record at 2, an
     * open transaction from 3, a plain record at 4; records before 4 deleted. Every read_committed
     * Fetch, ListOffsets (earliest, latest read_committed) and DescribeProducers answer alike,
     * before the open transaction commits (marker 5) and after.
     */
    @Test
    void deleteRecordsPastAnOpenTransaction_answersAsApacheKafka() throws Exception {
        List<String> kafkaViews = new ArrayList<>();
        try (OracleTransactions kafka = new OracleTransactions("rc-delete-", Map.of(), true)) {
            kafka.transaction("aborted", false);
            awaitHighWatermark(kafka.admin, kafka.tp, 2);
            kafka.send(kafka.plain, "plain");
            kafka.tx.beginTransaction();
            kafka.send(kafka.tx, "open");
            kafka.send(kafka.plain, "tail");
            deleteRecordsBefore(kafka.admin, kafka.tp, 4);
            kafkaViews.addAll(readCommittedViews(kafka.bootstrap, kafka.topic, 5));
            kafkaViews.add(startAndOffsetsView(kafka.admin, kafka.tp));
            kafka.tx.commitTransaction();
            awaitHighWatermark(kafka.admin, kafka.tp, 6);
            kafkaViews.addAll(readCommittedViews(kafka.bootstrap, kafka.topic, 6));
            kafkaViews.add(startAndOffsetsView(kafka.admin, kafka.tp));
        }
        System.out.println("Kafka's answers:\n" + String.join("\n", kafkaViews));

        List<String> aloftViews = new ArrayList<>();
        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, Map.of())) {
            short tv2 = 2;
            aloft.append(batch(7, (short) 0, "aborted"));         // 0
            aloft.marker(7, (short) 1, 0, false, tv2);            // 1
            aloft.append(batch(-1, (short) 0, "plain"));          // 2
            aloft.append(batch(7, (short) 1, "open"));            // 3
            aloft.append(batch(-1, (short) 0, "tail"));           // 4
            deleteRecordsBefore(aloft.admin(), TP, 4);
            aloftViews.addAll(readCommittedViews(aloft.broker().bootstrap(), TOPIC, 5));
            aloftViews.add(startAndOffsetsView(aloft.admin(), TP));
            aloft.marker(7, (short) 2, 0, true, tv2);             // 5
            aloftViews.addAll(readCommittedViews(aloft.broker().bootstrap(), TOPIC, 6));
            aloftViews.add(startAndOffsetsView(aloft.admin(), TP));
        }
        assertEquals(kafkaViews, aloftViews);
    }

    /**
     * The batches of partition 0 of {@code topic} from 0: per batch, control or data, timestamp
     * type, and whether its max timestamp falls within {@code [from, to]} (the broker's clock while
     * it was written: a log append time).
     */
    private static List<String> timestampView(String bootstrap, String topic, long from, long to) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawKafkaClient raw = new RawKafkaClient(bootstrap)) {
            FetchResponseData.PartitionData p = only(raw.send(readCommittedFetch(topic, 0, 0)));
            for (org.apache.kafka.common.record.internal.RecordBatch b : ((MemoryRecords) p.records()).batches()) {
                out.add((b.isControlBatch() ? "marker " : "data ") + b.timestampType() + " appended-now="
                        + (b.maxTimestamp() >= from && b.maxTimestamp() <= to));
            }
        }
        return out;
    }

    /**
     * On a topic with {@code message.timestamp.type=LogAppendTime}, a transaction's marker is stamped
     * with the broker's time as its data is, as Apache Kafka 4.3.1 stamps it.
     */
    @Test
    void markerOnLogAppendTimeTopic_stampedAsApacheKafka() throws Exception {
        Map<String, String> lat = Map.of("message.timestamp.type", "LogAppendTime");
        List<String> kafkaView;
        try (OracleTransactions kafka = new OracleTransactions("rc-lat-", lat, false)) {
            long from = System.currentTimeMillis();
            kafka.transaction("x", true);
            awaitHighWatermark(kafka.admin, kafka.tp, 2);
            kafkaView = timestampView(kafka.bootstrap, kafka.topic, from, System.currentTimeMillis());
        }
        assertEquals(List.of("data LogAppendTime appended-now=true", "marker LogAppendTime appended-now=true"),
                kafkaView, "Kafka's answer");

        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, lat)) {
            long from = System.currentTimeMillis();
            aloft.append(batch(7, (short) 0, "x"));               // 0
            aloft.marker(7, (short) 1, 0, true, (short) 2);       // 1
            assertEquals(kafkaView,
                    timestampView(aloft.broker().bootstrap(), TOPIC, from, System.currentTimeMillis()));
        }
    }

    /** A WriteTxnMarkers request (as a transaction coordinator sends it) for partition 0 of {@code topic}. */
    private static org.apache.kafka.common.requests.WriteTxnMarkersRequest marker(String topic, long pid, short epoch,
            int coordinatorEpoch, short version, byte transactionVersion) {
        org.apache.kafka.common.message.WriteTxnMarkersRequestData data =
                new org.apache.kafka.common.message.WriteTxnMarkersRequestData().setMarkers(List.of(
                        new org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker()
                                .setProducerId(pid).setProducerEpoch(epoch).setCoordinatorEpoch(coordinatorEpoch)
                                .setTransactionResult(true).setTransactionVersion(transactionVersion)
                                .setTopics(List.of(new org.apache.kafka.common.message.WriteTxnMarkersRequestData
                                        .WritableTxnMarkerTopic().setName(topic).setPartitionIndexes(List.of(0))))));
        return org.apache.kafka.common.requests.WriteTxnMarkersRequest.parse(
                org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(data, version), version);
    }

    private static String markerError(RawKafkaClient raw, org.apache.kafka.common.requests.WriteTxnMarkersRequest r)
            throws Exception {
        org.apache.kafka.common.requests.WriteTxnMarkersResponse response = raw.send(r);
        return org.apache.kafka.common.protocol.Errors.forCode(response.data().markers().get(0).topics().get(0)
                .partitions().get(0).errorCode()).name();
    }

    /**
     * The fencing of transaction markers, against Apache Kafka 4.3.1: a producer with an open
     * transaction, the producer epoch and coordinator epoch of its last marker known; markers with
     * an older producer epoch (transaction version 0), an older coordinator epoch, and the current
     * producer epoch under transaction version 2 are refused with the same errors as Kafka's
     * WriteTxnMarkers answers.
     */
    @Test
    void markerFencing_refusesWithApacheKafkasErrors() throws Exception {
        List<String> kafkaErrors = new ArrayList<>();
        ProducerState state;
        try (OracleTransactions kafka = new OracleTransactions("rc-fence-", Map.of(), false);
                RawKafkaClient raw = new RawKafkaClient(kafka.bootstrap)) {
            String topic = kafka.topic;
            kafka.transaction("x", true);
            awaitHighWatermark(kafka.admin, kafka.tp, 2);
            kafka.tx.beginTransaction();
            kafka.send(kafka.tx, "y");
            state = kafka.admin.describeProducers(List.of(kafka.tp)).partitionResult(kafka.tp)
                    .get(30, TimeUnit.SECONDS).activeProducers().get(0);
            short epoch = (short) state.producerEpoch();
            int coordinator = state.coordinatorEpoch().orElseThrow();
            assertTrue(epoch >= 1, state.toString());
            kafkaErrors.add(markerError(raw, marker(topic, state.producerId(), (short) (epoch - 1), coordinator,
                    (short) 1, (byte) 0)));
            kafkaErrors.add(markerError(raw, marker(topic, state.producerId(), epoch, coordinator - 1, (short) 1,
                    (byte) 0)));
            kafkaErrors.add(markerError(raw, marker(topic, state.producerId(), epoch, coordinator, (short) 2,
                    (byte) 2)));
            kafka.tx.abortTransaction();
        }

        List<String> aloftErrors = new ArrayList<>();
        try (OnePartitionLog aloft = OnePartitionLog.start(dir, TOPIC, Map.of())) {
            PartitionLog log = aloft.log();
            short epoch = (short) state.producerEpoch();
            int coordinator = state.coordinatorEpoch().orElseThrow();
            aloft.append(MemoryRecords.withTransactionalRecords(Compression.NONE, 7, epoch, 0,
                    new SimpleRecord("x".getBytes(StandardCharsets.UTF_8))));
            aloft.marker(7, epoch, coordinator, true, (short) 0);
            aloft.append(MemoryRecords.withTransactionalRecords(Compression.NONE, 7, epoch, 1,
                    new SimpleRecord("y".getBytes(StandardCharsets.UTF_8))));
            aloftErrors.add(markerRefusal(log.appendMarker(7, (short) (epoch - 1), coordinator, true, (short) 0)));
            aloftErrors.add(markerRefusal(log.appendMarker(7, epoch, coordinator - 1, true, (short) 0)));
            aloftErrors.add(markerRefusal(log.appendMarker(7, epoch, coordinator, true, (short) 2)));
        }
        assertEquals(List.of("INVALID_PRODUCER_EPOCH", "TRANSACTION_COORDINATOR_FENCED", "INVALID_PRODUCER_EPOCH"),
                kafkaErrors, "Kafka's answers");
        assertEquals(kafkaErrors, aloftErrors);
    }

    private static String markerRefusal(CompletableFuture<?> append) {
        try {
            append.get(10, TimeUnit.SECONDS);
            return "NONE";
        } catch (Exception e) {
            Throwable cause = e.getCause();
            return cause instanceof io.aloft.broker.log.PartitionLogException ple ? ple.error().name() : e.toString();
        }
    }
}
