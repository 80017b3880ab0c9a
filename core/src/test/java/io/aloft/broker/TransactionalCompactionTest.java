package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.PartitionLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic written by kafka-clients' transactional producer (aborted and committed
 * transactions, through Aloft's transaction coordinator) and a plain one, compacted, and read by
 * stock read_committed and read_uncommitted consumers: compaction removes the aborted records (a
 * read_uncommitted consumer no longer sees them, as with Kafka's cleaner), keeps each key's latest
 * committed value, and, over later cleanings, the markers whose transactions have nothing left,
 * once {@code delete.retention.ms} has passed. Cleanings are run on demand. The same layout
 * written to Apache Kafka 4.3.1 and compacted by its cleaner reads the same.
 */
class TransactionalCompactionTest {
    private static final String TOPIC = "txn-compacted";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final Map<String, String> COMPACT = Map.of("cleanup.policy", "compact", "segment.ms", "100",
            "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "500");

    @TempDir
    Path dir;

    @RegisterExtension
    final CompactionBroker broker = new CompactionBroker();

    private static Properties producerProps(String bootstrap, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.putAll(extra);
        return p;
    }

    private void plain(String key, String value) throws Exception {
        plain(broker.bootstrap(), TOPIC, key, value);
    }

    private static void plain(String bootstrap, String topic, String key, String value) throws Exception {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap, Map.of()))) {
            p.send(new ProducerRecord<>(topic, 0, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    private List<String> read(String isolation) throws Exception {
        return read(broker.bootstrap(), TOPIC, isolation);
    }

    /** Every record from the start to the end {@code isolation} sees, key to value, in offset order. */
    private static List<String> read(String bootstrap, String topic, String isolation) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (c.position(tp) < end) {
                assertTrue(System.nanoTime() < deadline, "read up to " + c.position(tp) + " of " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    out.add(r.key() + "=" + r.value());
                }
            }
        }
        return out;
    }

    private static Map<String, String> latest(List<String> records) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String r : records) {
            String[] kv = r.split("=", 2);
            m.remove(kv[0]);
            m.put(kv[0], kv[1]);
        }
        return m;
    }

    /** The marker batches the partition holds: how many, and how many still have their control record. */
    private List<Integer> markers() throws Exception {
        PartitionLog log = broker.broker().partitions().leaderLog(TP).get(30, TimeUnit.SECONDS);
        int all = 0;
        int withRecord = 0;
        for (RecordBatch b : log.read(log.logStartOffset(), 1 << 20, true).get(30, TimeUnit.SECONDS).records()
                .batches()) {
            if (b.isControlBatch()) {
                all++;
                withRecord += b.iterator().hasNext() ? 1 : 0;
            }
        }
        return List.of(all, withRecord);
    }

    private boolean uncommittedHasNo(String prefix) {
        try {
            return read("read_uncommitted").stream().noneMatch(r -> r.contains("=" + prefix));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Plain k0..k4; transactions: aborted (k0, k5), committed (k1, k6), aborted (k2), committed
     * (k7); plain k8, sent once {@code segment.ms} has passed (Kafka rolls its segment then,
     * so all the rest is cleanable there).
     */
    private static void writeLayout(String bootstrap, String topic) throws Exception {
        for (int i = 0; i < 5; i++) {
            plain(bootstrap, topic, "k" + i, "base-" + i);
        }
        try (KafkaProducer<String, String> tx = new KafkaProducer<>(producerProps(bootstrap, Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx")))) {
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k0", "aborted-0"));
            tx.send(new ProducerRecord<>(topic, 0, "k5", "aborted-5"));
            tx.flush(); // written, then aborted (unsent records would just be dropped)
            tx.abortTransaction();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k1", "committed-1"));
            tx.send(new ProducerRecord<>(topic, 0, "k6", "committed-6"));
            tx.commitTransaction();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k2", "aborted-2"));
            tx.flush();
            tx.abortTransaction();
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, "k7", "last-7"));
            tx.commitTransaction();
        }
        Thread.sleep(300); // past segment.ms: the next record starts a new segment on Kafka
        plain(bootstrap, topic, "k8", "tail");
    }

    /**
     * What Apache Kafka 4.3.1's cleaner leaves of the same layout: read_committed and
     * read_uncommitted, once its cleaner (a pass every 15 s) has removed the aborted records.
     */
    private static List<List<String>> kafkaAfterCompaction() throws Exception {
        String kafka = io.aloft.broker.conformance.KafkaOracle.bootstrap();
        String topic = "txn-compacted-" + System.nanoTime();
        try (Admin kadmin = Admin.create(Map.of("bootstrap.servers", kafka))) {
            kadmin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(COMPACT))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        writeLayout(kafka, topic);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<String> uncommitted;
        while ((uncommitted = read(kafka, topic, "read_uncommitted")).stream().anyMatch(r -> r.contains("aborted"))) {
            assertTrue(System.nanoTime() < deadline, "Kafka's cleaner did not compact: " + uncommitted);
            Thread.sleep(500); // poll: its cleaner wakes every log.cleaner.backoff.ms
        }
        return List.of(read(kafka, topic, "read_committed"), uncommitted);
    }

    @Test
    void transactionalProducerOnACompactedTopic_compactionRemovesAbortedRecords_thenSpentMarkers()
            throws Exception {
        broker.start(dir.resolve("broker"), Map.of("aloft.transactions.enable", "true"));
        broker.createTopic(TOPIC, COMPACT);
        writeLayout(broker.bootstrap(), TOPIC);
        List<String> uncommittedBefore = read("read_uncommitted");
        List<String> committedBefore = read("read_committed");
        assertTrue(uncommittedBefore.containsAll(List.of("k0=aborted-0", "k5=aborted-5", "k2=aborted-2")),
                uncommittedBefore.toString());
        assertTrue(committedBefore.stream().noneMatch(r -> r.contains("aborted")), committedBefore.toString());
        assertEquals(List.of(4, 4), markers());

        broker.cleanUntil("the aborted records gone", () -> uncommittedHasNo("aborted"));

        Map<String, String> expected = latest(committedBefore);
        List<String> committedAfter = read("read_committed");
        List<String> uncommittedAfter = read("read_uncommitted");
        assertEquals(kafkaAfterCompaction(), List.of(committedAfter, uncommittedAfter),
                "what Apache Kafka's consumers read after its cleaner ran");
        assertEquals(expected, latest(committedAfter));
        assertEquals(committedAfter, uncommittedAfter, "both see the same records once the aborted ones are gone");
        assertEquals(expected.size(), committedAfter.size(), "one record per key: " + committedAfter);
        assertEquals(List.of(4, 4), markers(), "a marker stays while its transaction has batches left");

        // Later cleanings (each needs new data): the markers of the aborted transactions, which
        // have nothing left, get a horizon, then go after delete.retention.ms; those of the
        // committed ones stay with their records (each holds a key's latest value).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (markers().get(0) > 2) {
            assertTrue(System.nanoTime() < deadline, "the spent markers never went: " + markers() + "; "
                    + broker.broker().logCleaner().stats());
            plain("tick", "t" + System.nanoTime());
            Thread.sleep(250); // past segment.ms, and uploaded: the tick makes the log dirty enough to clean
            broker.broker().logCleaner().cleanNow();
        }
        assertEquals(List.of(2, 2), markers());
        List<String> committedLast = read("read_committed");
        assertEquals(committedLast, read("read_uncommitted"));
        Map<String, String> expectedLast = new LinkedHashMap<>(expected);
        expectedLast.remove("tick");
        Map<String, String> gotLast = latest(committedLast);
        gotLast.remove("tick");
        assertEquals(expectedLast, gotLast);
        assertEquals(0, broker.admin().listOffsets(Map.of(TP, OffsetSpec.earliest())).partitionResult(TP)
                .get(30, TimeUnit.SECONDS).offset(), "the log start does not move");
    }
}
