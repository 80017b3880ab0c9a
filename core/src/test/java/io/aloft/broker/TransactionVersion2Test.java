package io.aloft.broker;

import static io.aloft.broker.TransactionalClients.describe;
import static io.aloft.broker.TransactionalClients.producer;
import static io.aloft.broker.TransactionalClients.readToEnd;
import static io.aloft.broker.TransactionalClients.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction version 2 (KIP-890 part 2) with the stock Java producer of kafka-clients 4.3: at
 * finalized {@code transaction.version} 2 ({@code aloft.transaction.version=2}) it ends transactions with EndTxn v5 and never
 * sends AddPartitionsToTxn (its partitions' leaders add them, Produce v12+), and every transaction
 * bumps its epoch; at level 1 ({@code aloft.transaction.version=1}) the same client falls back to
 * AddPartitionsToTxn and EndTxn v4 with one epoch per session. Which versions it speaks is read
 * from the broker's request counts.
 */
class TransactionVersion2Test {
    private static final String TOPIC = "tv2";
    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition(TOPIC, 0),
            new TopicPartition(TOPIC, 1));
    private static final Map<String, String> ENABLED = Map.of("aloft.transactions.enable", "true",
            "transaction.state.log.num.partitions", "2", "aloft.transaction.version", "2");

    @TempDir
    Path dir;

    @Test
    void level2_javaProducer_usesEndTxnV5_noAddPartitionsToTxn_epochBumpsPerTransaction() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED)) {
            assertEquals(2, finalizedTransactionVersion(broker));
            createTopic(broker);
            List<Integer> epochs = new ArrayList<>();
            try (KafkaProducer<String, String> producer = producer(broker, "tv2-a")) {
                producer.initTransactions();
                epochs.add(describe(broker, "tv2-a").producerEpoch());
                for (String outcome : List.of("commit1", "abort2", "commit3")) {
                    producer.beginTransaction();
                    sendToEach(producer, outcome);
                    sendToEach(producer, outcome + "b"); // later batches of the transaction: no new check
                    if (outcome.startsWith("commit")) {
                        producer.commitTransaction();
                    } else {
                        producer.abortTransaction();
                    }
                    epochs.add(describe(broker, "tv2-a").producerEpoch());
                }
            }
            for (int i = 1; i < epochs.size(); i++) {
                assertEquals(epochs.get(i - 1) + 1, (int) epochs.get(i), "one epoch bump per transaction: " + epochs);
            }
            assertEquals(3, broker.broker().requestsDispatched(ApiKeys.END_TXN, (short) 5));
            for (short v = 0; v <= 5; v++) {
                assertEquals(0, broker.broker().requestsDispatched(ApiKeys.ADD_PARTITIONS_TO_TXN, v),
                        "AddPartitionsToTxn v" + v + " from the client");
            }
            assertTrue(broker.broker().requestsDispatched(ApiKeys.PRODUCE, (short) 13) > 0, "Produce v13");
            assertEquals(List.of("commit1-0", "commit1-1", "commit1b-0", "commit1b-1", "commit3-0", "commit3-1",
                    "commit3b-0", "commit3b-1"), readCommitted(broker));
        }
    }

    @Test
    void level1_sameClient_fallsBackToTransactionVersion1() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(ENABLED);
        settings.put("aloft.transaction.version", "1");
        try (TestBroker broker = new TestBroker(dir, settings)) {
            assertEquals(1, finalizedTransactionVersion(broker));
            createTopic(broker);
            List<Integer> epochs = new ArrayList<>();
            try (KafkaProducer<String, String> producer = producer(broker, "tv1-a")) {
                producer.initTransactions();
                for (String outcome : List.of("commit1", "abort2", "commit3")) {
                    producer.beginTransaction();
                    sendToEach(producer, outcome);
                    if (outcome.startsWith("commit")) {
                        producer.commitTransaction();
                    } else {
                        producer.abortTransaction();
                    }
                    epochs.add(describe(broker, "tv1-a").producerEpoch());
                }
            }
            assertEquals(List.of(epochs.get(0), epochs.get(0), epochs.get(0)), epochs, "no bump in version 1");
            assertEquals(0, broker.broker().requestsDispatched(ApiKeys.END_TXN, (short) 5));
            assertEquals(3, broker.broker().requestsDispatched(ApiKeys.END_TXN, (short) 4));
            assertTrue(broker.broker().requestsDispatched(ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 3) >= 3);
            assertEquals(0, broker.broker().requestsDispatched(ApiKeys.PRODUCE, (short) 12)
                    + broker.broker().requestsDispatched(ApiKeys.PRODUCE, (short) 13), "Produce v12+ in a v1 transaction");
            assertEquals(List.of("commit1-0", "commit1-1", "commit3-0", "commit3-1"), readCommitted(broker));
        }
    }

    /**
     * Many records to several partitions without waiting (requests with several partitions, five in
     * flight): each partition's first batch waits for its add at the coordinator with the producer's
     * later batches queued behind it, so every record lands once and in order.
     */
    @Test
    void level2_manyBatchesInFlight_firstBatchesAdded_allCommittedInOrder() throws Exception {
        String topic = "tv2-many";
        int partitions = 4;
        int perPartition = 100;
        try (TestBroker broker = new TestBroker(dir, ENABLED); Admin admin = Admin.create(broker.clientProps())) {
            TransactionalClients.createTopic(broker, topic, partitions);
            try (KafkaProducer<String, String> producer = producer(broker, "tv2-many")) {
                producer.initTransactions();
                for (int txn = 0; txn < 2; txn++) {
                    producer.beginTransaction();
                    List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
                    for (int i = 0; i < perPartition; i++) {
                        for (int p = 0; p < partitions; p++) {
                            sent.add(producer.send(new ProducerRecord<>(topic, p, null, txn + "-" + i)));
                        }
                    }
                    for (java.util.concurrent.Future<?> f : sent) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    producer.commitTransaction();
                }
            }
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            Map<Integer, List<String>> byPartition = new java.util.HashMap<>();
            for (ConsumerRecord<String, String> r : readToEnd(broker, "read_committed", tps)) {
                byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
            }
            List<String> expected = new ArrayList<>();
            for (int txn = 0; txn < 2; txn++) {
                for (int i = 0; i < perPartition; i++) {
                    expected.add(txn + "-" + i);
                }
            }
            for (int i = 0; i < partitions; i++) {
                assertEquals(expected, byPartition.get(i), "partition " + i);
            }
        }
    }

    /**
     * Offsets in a version-2 transaction: the client sends TxnOffsetCommit v5 and no AddOffsetsToTxn,
     * the broker adds the group's offsets partition to the transaction; committed offsets become the
     * group's, aborted ones do not.
     */
    @Test
    void level2_sendOffsetsToTransaction_txnOffsetCommitV5_committedOffsetsOnly() throws Exception {
        try (TestBroker broker = new TestBroker(dir, ENABLED); Admin admin = Admin.create(broker.clientProps())) {
            createTopic(broker);
            try (KafkaProducer<String, String> producer = producer(broker, "tv2-offsets")) {
                producer.initTransactions();
                producer.beginTransaction();
                sendWithOffsets(producer, "with-offsets", 5, "g-committed");
                producer.commitTransaction();
                producer.beginTransaction();
                sendWithOffsets(producer, "aborted-offsets", 9, "g-aborted");
                producer.abortTransaction();
            }
            assertEquals(2, broker.broker().requestsDispatched(ApiKeys.TXN_OFFSET_COMMIT, (short) 5));
            for (short v = 0; v <= 4; v++) {
                assertEquals(0, broker.broker().requestsDispatched(ApiKeys.ADD_OFFSETS_TO_TXN, v));
            }
            assertEquals(5, admin.listConsumerGroupOffsets("g-committed").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(PARTITIONS.get(0)).offset());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> aborted;
            // The abort's marker is written after EndTxn is answered: the pending offset goes once it is.
            while (!(aborted = admin.listConsumerGroupOffsets("g-aborted").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)).isEmpty() && aborted.get(PARTITIONS.get(0)) != null) {
                assertTrue(System.nanoTime() < deadline, "aborted offsets still " + aborted);
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Back-to-back transactions (OMB's transactions workload): the producer begins the next
     * transaction as soon as EndTxn answers, so its first batches reach their leaders while the
     * last one's markers are still being written, and the coordinator answers their adds
     * CONCURRENT_TRANSACTIONS. The leader asks again once the transaction has completed, as Kafka's
     * leader retries such an add, so no produce is answered with an error and the producer never
     * backs off (it did, retry.backoff.ms each time, when the leader answered NOT_ENOUGH_REPLICAS;
     * and the markers landing meanwhile must not void the batch's guard). The bound is raised so
     * that a slow machine cannot let CONCURRENT_TRANSACTIONS through.
     */
    @Test
    void level2_backToBackTransactions_noProduceErrors_noProducerRetries() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(ENABLED);
        settings.put("add.partitions.to.txn.retry.backoff.max.ms", "30000");
        int transactions = 30;
        int partitions = 8;
        try (TestBroker broker = new TestBroker(dir, settings)) {
            TransactionalClients.createTopic(broker, "b2b", partitions);
            try (KafkaProducer<String, String> producer = producer(broker, "tv2-b2b")) {
                producer.initTransactions();
                for (int t = 0; t < transactions; t++) {
                    producer.beginTransaction();
                    for (int p = 0; p < partitions; p++) { // one request for all: the commit flushes it
                        producer.send(new ProducerRecord<>("b2b", p, null, t + "-" + p));
                    }
                    producer.commitTransaction();
                }
                assertEquals(0.0, producerMetric(producer, "record-retry-total"), "batches the producer resent");
                assertEquals(0.0, producerMetric(producer, "record-error-total"));
            }
            Map<String, Double> produceErrors = new java.util.TreeMap<>();
            for (Counter c : broker.broker().metrics().registry().find("kafka.network.requestmetrics.errors")
                    .tag("request", "Produce").counters()) {
                if (c.count() > 0) {
                    produceErrors.put(c.getId().getTag("error"), c.count());
                }
            }
            assertEquals(Map.of("NONE", (double) transactions * partitions), produceErrors,
                    "Produce answers by error code");
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition("b2b", p));
            }
            assertEquals(transactions * partitions, readToEnd(broker, "read_committed", tps).size());
        }
    }

    private static double producerMetric(KafkaProducer<?, ?> producer, String name) {
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> e
                : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no producer metric " + name);
    }

    private static short finalizedTransactionVersion(TestBroker broker) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            FeatureMetadata f = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
            // share.version too: share groups are on by default (aloft.share.version=1), as in Kafka 4.3.
            assertEquals(java.util.Set.of("transaction.version", "share.version"), f.finalizedFeatures().keySet());
            assertEquals(0, f.supportedFeatures().get("transaction.version").minVersion());
            assertEquals(2, f.supportedFeatures().get("transaction.version").maxVersion());
            return f.finalizedFeatures().get("transaction.version").maxVersionLevel();
        }
    }

    private static void createTopic(TestBroker broker) throws Exception {
        TransactionalClients.createTopic(broker, TOPIC, PARTITIONS.size());
    }

    private static void sendToEach(KafkaProducer<String, String> producer, String prefix) throws Exception {
        TransactionalClients.sendToEach(producer, PARTITIONS, prefix);
    }

    /** In the open transaction: {@link #sendToEach}, then {@code offset} of partition 0 for {@code group}. */
    private static void sendWithOffsets(KafkaProducer<String, String> producer, String prefix, long offset,
            String group) throws Exception {
        sendToEach(producer, prefix);
        producer.sendOffsetsToTransaction(Map.of(PARTITIONS.get(0),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset)),
                new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
    }

    /** Every committed value, partition 0's then partition 1's... sorted: each partition in order. */
    private static List<String> readCommitted(TestBroker broker) throws Exception {
        List<String> out = new ArrayList<>(values(readToEnd(broker, "read_committed", PARTITIONS)));
        out.sort(String::compareTo);
        return out;
    }
}
