package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.conformance.KafkaOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WriteTxnMarkers (API 27) as another broker's transaction coordinator sends it, against Apache
 * Kafka 4.3.1: the same requests, at v1 and v2, to both brokers, each holding a topic with an open
 * transaction of a real transactional producer (after one committed), and the per-partition answers
 * compared: unknown topic and partition, a stale producer epoch, an older coordinator epoch, several
 * markers in one request, a marker naming no partition, an empty request, a marker for a partition
 * of {@code __consumer_offsets}, a negative producer epoch (Kafka fails the whole request), and
 * finally the marker that ends the open transaction.
 */
class WriteTxnMarkersTest {
    @TempDir
    Path dir;

    /** The open transaction's producer id, epoch and coordinator epoch on one broker. */
    private record Open(long producerId, short epoch, int coordinatorEpoch) {
    }

    private static WritableTxnMarker marker(long pid, short epoch, int coordinatorEpoch, boolean commit,
            byte transactionVersion, String topic, Integer... partitions) {
        WritableTxnMarker m = new WritableTxnMarker().setProducerId(pid).setProducerEpoch(epoch)
                .setCoordinatorEpoch(coordinatorEpoch).setTransactionResult(commit)
                .setTransactionVersion(transactionVersion);
        if (topic != null) {
            m.setTopics(List.of(new WritableTxnMarkerTopic().setName(topic).setPartitionIndexes(List.of(partitions))));
        }
        return m;
    }

    private static WriteTxnMarkersRequest request(short version, WritableTxnMarker... markers) {
        WriteTxnMarkersRequestData data = new WriteTxnMarkersRequestData().setMarkers(List.of(markers));
        return WriteTxnMarkersRequest.parse(MessageUtil.toByteBufferAccessor(data, version), version);
    }

    /** The answer with the open producer's id written as "P": "{P={topic-0=NONE}, 4242={...}}". */
    private static String answer(RawKafkaClient raw, WriteTxnMarkersRequest request, Open open) throws Exception {
        WriteTxnMarkersResponse r = raw.send(request);
        Map<String, Map<String, String>> out = new TreeMap<>();
        r.errorsByProducerId().forEach((pid, errors) -> {
            Map<String, String> byPartition = new TreeMap<>();
            errors.forEach((tp, e) -> byPartition.put(tp.toString(), e.name()));
            out.put(pid == open.producerId ? "P" : Long.toString(pid), byPartition);
        });
        return request.version() + ": " + r.data().markers().size() + " markers " + out;
    }

    /** A topic of two partitions with a committed transaction and an open one of {@code transactionalId}. */
    private static Open openTransaction(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx");
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // So that __consumer_offsets exists on both brokers (a group's coordinator lookup makes it).
            try {
                admin.describeConsumerGroups(List.of(topic + "-group")).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // GROUP_ID_NOT_FOUND (Kafka 4), once the lookup has made the topic: all that was needed.
            }
            try (KafkaProducer<String, String> first = new KafkaProducer<>(p)) {
                first.initTransactions(); // so the producer epoch below is at least 1 and "stale" is epoch - 1 >= 0
            }
            KafkaProducer<String, String> tx = new KafkaProducer<>(p); // left open: the broker keeps the transaction
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k", "committed")).get(30, TimeUnit.SECONDS);
            tx.commitTransaction();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).partitionResult(tp)
                    .get(30, TimeUnit.SECONDS).offset() < 2) {
                assertTrue(System.nanoTime() < deadline, "the commit marker was never written");
            }
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k", "open")).get(30, TimeUnit.SECONDS);
            tx.close(java.time.Duration.ZERO);
            ProducerState s = admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .activeProducers().get(0);
            assertTrue(s.currentTransactionStartOffset().isPresent(), s.toString());
            assertTrue(s.producerEpoch() >= 1, s.toString());
            return new Open(s.producerId(), (short) s.producerEpoch(), s.coordinatorEpoch().orElseThrow());
        }
    }

    /** Every case's answer on one broker, in order. */
    private static List<String> answers(String bootstrap, String topic) throws Exception {
        Open o = openTransaction(bootstrap, topic);
        short stale = (short) (o.epoch - 1);
        List<String> out = new ArrayList<>();
        try (RawKafkaClient raw = new RawKafkaClient(bootstrap)) {
            for (short v = 1; v <= 2; v++) {
                out.add(answer(raw, request(v, marker(4242, (short) 0, 0, true, (byte) 0, topic + "-missing", 0)), o));
                out.add(answer(raw, request(v, marker(4242, (short) 0, 0, true, (byte) 0, topic, 7)), o));
                out.add(answer(raw, request(v, marker(o.producerId, stale, o.coordinatorEpoch, true, (byte) 0, topic,
                        0)), o));
                out.add(answer(raw, request(v, marker(o.producerId, o.epoch, o.coordinatorEpoch - 1, false, (byte) 0,
                        topic, 0)), o));
                // Skipped markers (no partition that exists, or none at all) before one that is written:
                // Kafka 4.3.1 never answers when they come after it and its append fails at once.
                out.add(answer(raw, request(v,
                        marker(4243, (short) 0, 0, false, (byte) 0, topic + "-missing", 0, 1),
                        marker(4244, (short) 0, 0, false, (byte) 0, null),
                        marker(o.producerId, stale, o.coordinatorEpoch, true, (byte) 0, topic, 0, 1)), o));
                out.add(answer(raw, request(v), o));
                // KIP-890's check: at transaction version 2 the marker's epoch must be above the producer's.
                out.add(answer(raw, request(v, marker(o.producerId, o.epoch, o.coordinatorEpoch, true, (byte) 2, topic,
                        0)), o));
            }
            out.add(answer(raw, request((short) 2, marker(4245, (short) 0, 0, false, (byte) 1, "__consumer_offsets",
                    0)), o));
            // Bad input: a negative producer epoch (no marker can carry one), next to a valid marker.
            out.add(answer(raw, request((short) 1, marker(4246, (short) -1, 0, true, (byte) 0, topic, 1),
                    marker(4247, (short) 0, 0, true, (byte) 0, topic, 1)), o));
            // The marker the coordinator would write: the open transaction ends, and partition 1 gets one too.
            out.add(answer(raw, request((short) 1, marker(o.producerId, o.epoch, o.coordinatorEpoch, false, (byte) 0,
                    topic, 0, 1)), o));
        }
        return out;
    }

    @Test
    void everyAnswer_isApacheKafkas() throws Exception {
        String topic = "wtm-" + System.nanoTime();
        List<String> kafka = answers(KafkaOracle.bootstrap(), topic);
        // What Kafka answered, so the comparison cannot pass on two empty answers.
        assertEquals("1: 1 markers {4242={" + topic + "-missing-0=UNKNOWN_TOPIC_OR_PARTITION}}", kafka.get(0));
        assertEquals("1: 1 markers {P={" + topic + "-0=INVALID_PRODUCER_EPOCH}}", kafka.get(2));
        assertEquals("1: 1 markers {P={" + topic + "-0=TRANSACTION_COORDINATOR_FENCED}}", kafka.get(3));
        List<String> aloft;
        try (TestBroker broker = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "4"))) {
            aloft = answers(broker.bootstrap(), topic);
        }
        assertEquals(String.join("\n", kafka), String.join("\n", aloft));
    }
}
