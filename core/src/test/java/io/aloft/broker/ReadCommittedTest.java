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
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, the partition side, seen by Kafka's own clients: transactions are written straight into
 * the partition log (the coordinator that will send them does not exist yet), and a stock
 * read_committed consumer reads only committed records (Fetch's last stable offset and aborted
 * transactions), stops at an open transaction, finds the last stable offset as the end offset
 * (ListOffsets with isolation_level 1), while a read_uncommitted one reads everything; the Admin
 * client's DescribeProducers shows the open transaction's start. A read_committed fetch at the
 * last stable offset waits (the high watermark above it is no reason to answer at once) and is
 * answered once a marker moves it.
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
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.assign(List.of(TP));
        c.seekToBeginning(List.of(TP));
        return c;
    }

    /**
     * The partition's log on the broker, once its metadata has the new topic (each try that finds
     * it missing waits for a metadata round trip).
     */
    private static PartitionLog leaderLog(TestBroker broker, Admin admin) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return broker.broker().partitions().leaderLog(TP).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS);
            }
        }
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
        try (TestBroker broker = new TestBroker(dir); Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            PartitionLog log = leaderLog(broker, admin);
            log.append(records(-1, false, 0, "a")).get(10, TimeUnit.SECONDS);              // 0
            log.append(records(7, true, 0, "aborted-1", "aborted-2")).get(10, TimeUnit.SECONDS); // 1-2
            log.append(records(8, true, 0, "committed")).get(10, TimeUnit.SECONDS);          // 3
            log.appendMarker(7, (short) 0, 0, false, (short) 0).get(10, TimeUnit.SECONDS);   // 4
            log.appendMarker(8, (short) 0, 0, true, (short) 0).get(10, TimeUnit.SECONDS);    // 5
            log.append(records(-1, false, 0, "b")).get(10, TimeUnit.SECONDS);                // 6
            log.append(records(9, true, 0, "open")).get(10, TimeUnit.SECONDS);               // 7
            log.append(records(-1, false, 0, "c")).get(10, TimeUnit.SECONDS);                // 8
            assertEquals(7, log.lastStableOffset());
            assertEquals(9, log.highWatermark());

            try (KafkaConsumer<String, String> committed = consumer(broker, "read_committed");
                    KafkaConsumer<String, String> uncommitted = consumer(broker, "read_uncommitted")) {
                assertEquals(Map.of(TP, 7L), committed.endOffsets(List.of(TP)), "ListOffsets read_committed: the LSO");
                assertEquals(Map.of(TP, 9L), uncommitted.endOffsets(List.of(TP)));
                assertEquals(List.of("a", "committed", "b"), readUpTo(committed, 7));
                assertEquals(List.of("a", "aborted-1", "aborted-2", "committed", "b", "open", "c"),
                        readUpTo(uncommitted, 9));

                List<ProducerState> producers = admin.describeProducers(List.of(TP)).partitionResult(TP)
                        .get(30, TimeUnit.SECONDS).activeProducers();
                ProducerState open = producers.stream().filter(s -> s.producerId() == 9).findFirst().orElseThrow();
                assertEquals(7L, open.currentTransactionStartOffset().orElseThrow());
                ProducerState ended = producers.stream().filter(s -> s.producerId() == 8).findFirst().orElseThrow();
                assertTrue(ended.currentTransactionStartOffset().isEmpty());
                assertEquals(0, ended.coordinatorEpoch().orElseThrow());

                log.appendMarker(9, (short) 0, 0, true, (short) 0).get(10, TimeUnit.SECONDS); // 9
                assertEquals(List.of("open", "c"), readUpTo(committed, 10));
                assertEquals(Map.of(TP, 10L), committed.endOffsets(List.of(TP)));
            }
        }
    }

    /** A full read_committed Fetch (v12, by topic name) of partition 0 from {@code offset}. */
    private static FetchRequest readCommittedFetch(long offset, int maxWaitMs) {
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1)
                .setMaxBytes(1 << 20).setIsolationLevel((byte) 1).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(TOPIC).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20)))));
        return new FetchRequest(data, (short) 12);
    }

    private static FetchResponseData.PartitionData only(FetchResponse r) {
        return r.data().responses().get(0).partitions().get(0);
    }

    @Test
    void readCommittedFetchAtTheLso_waitsDespiteDataAboveIt_andIsAnsweredOnceTheMarkerMovesIt() throws Exception {
        try (TestBroker broker = new TestBroker(dir); Admin admin = Admin.create(broker.clientProps());
                RawKafkaClient raw = new RawKafkaClient(broker.bootstrap())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            PartitionLog log = leaderLog(broker, admin);
            log.append(records(7, true, 0, "t")).get(10, TimeUnit.SECONDS);                  // 0
            log.append(records(-1, false, 0, "x")).get(10, TimeUnit.SECONDS);                // 1

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
            log.appendMarker(7, (short) 0, 0, false, (short) 0).get(10, TimeUnit.SECONDS);  // 2
            FetchResponseData.PartitionData woken = only(waiting.get(10, TimeUnit.SECONDS));
            assertEquals(3, woken.lastStableOffset());
            assertTrue(woken.records().sizeInBytes() > 0);
            assertEquals(List.of(new FetchResponseData.AbortedTransaction().setProducerId(7).setFirstOffset(0)),
                    woken.abortedTransactions());
        }
    }
}
