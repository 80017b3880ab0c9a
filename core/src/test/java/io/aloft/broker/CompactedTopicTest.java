package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.cleaner.LogCleaner;
import io.aloft.stream.storage.S3ServerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compacted topics with kafka-clients' producer, consumer and Admin against a broker in this JVM:
 * latest values after compaction, offsets with gaps, a consumer in the middle of the range when a
 * compaction commits, ListOffsets and DeleteRecords over compacted data, keyless records refused,
 * and cleanup.policy changed on a live topic. Cleanings are run on demand
 * ({@link LogCleaner#cleanNow}; the background threads are off), so a test knows when one happened.
 */
class CompactedTopicTest {
    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    /** Compacted, with nothing held back as the active segment once 100 ms have passed. */
    static final Map<String, String> COMPACT = Map.of("cleanup.policy", "compact", "segment.ms", "100",
            "min.cleanable.dirty.ratio", "0.01");

    @TempDir
    Path dir;

    @RegisterExtension
    final CompactionBroker broker = new CompactionBroker();

    private void start(Map<String, String> extra) throws Exception {
        broker.start(dir.resolve("broker"), extra);
    }

    private KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    private KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    /** Sends {@code count} records, record i with key k(i % keys) and value v(i), in order; returns their offsets. */
    private List<Long> produce(String topic, int from, int count, int keys) throws Exception {
        List<Long> offsets = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.BATCH_SIZE_CONFIG, 1024))) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
            for (int i = from; i < from + count; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, "k" + (i % keys), "v" + i)));
            }
            for (var f : sent) {
                offsets.add(f.get(30, TimeUnit.SECONDS).offset());
            }
        }
        return offsets;
    }

    /** Every record of partition 0 from {@code from} to the end as of now. */
    private List<ConsumerRecord<String, String>> readAll(String topic, long from) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        long end = broker.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset();
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < end) {
                assertTrue(System.nanoTime() < deadline, "read up to " + consumer.position(tp) + " of " + end);
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    private static Map<String, String> latest(List<ConsumerRecord<String, String>> records) {
        Map<String, String> m = new LinkedHashMap<>();
        records.forEach(r -> m.put(r.key(), r.value()));
        return m;
    }

    private boolean readsOneRecordPerKey(String topic, int keys) {
        try {
            return readAll(topic, 0).size() == keys;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"file", "s3"})
    void compactedTopic_afterCompaction_consumersReadTheLatestValueOfEachKey_atItsOffset(String storage)
            throws Exception {
        start(storage.equals("s3") ? Map.of("s3.url", S3.newBucketUrl()) : Map.of());
        broker.createTopic("compacted", COMPACT);
        List<Long> offsets = produce("compacted", 0, 400, 20);
        List<ConsumerRecord<String, String>> before = readAll("compacted", 0);
        assertEquals(400, before.size(), "no compaction yet: every update is there");

        broker.cleanUntil("one record per key", () -> readsOneRecordPerKey("compacted", 20));

        List<ConsumerRecord<String, String>> after = readAll("compacted", 0);
        assertEquals(latest(before), latest(after));
        for (ConsumerRecord<String, String> r : after) {
            int i = Integer.parseInt(r.value().substring(1));
            assertEquals(offsets.get(i), r.offset(), "offsets never change: " + r);
        }
        assertEquals(380, after.get(0).offset(), "the consumer skipped the gap below the first record left");
        TopicPartition tp = new TopicPartition("compacted", 0);
        assertEquals(0, broker.admin().listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset(), "the log start offset does not move");
        // A read from inside the compacted range gets the next record left.
        assertEquals(380, readAll("compacted", 123).get(0).offset());
    }

    @Test
    void consumerMidRange_whenCompactionCommits_readsOnWithoutErrorsOrRepeats() throws Exception {
        start(Map.of());
        broker.createTopic("moving", COMPACT);
        produce("moving", 0, 3000, 50);
        TopicPartition tp = new TopicPartition("moving", 0);
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 4096, ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4096))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.size() < 500) {
                assertTrue(System.nanoTime() < deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            }

            broker.cleanUntil("a compaction committed", () -> broker.broker().logCleaner().stats().cleanings() > 0);

            while (consumer.position(tp) < 3000) {
                assertTrue(System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(60), "at " + consumer.position(tp));
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            }
        }
        long previous = -1;
        for (ConsumerRecord<String, String> r : seen) {
            assertTrue(r.offset() > previous, "offset " + r.offset() + " after " + previous + ": a repeat");
            previous = r.offset();
        }
        assertTrue(seen.size() < 3000, "the consumer read the rest compacted: " + seen.size());
        Map<String, String> expected = new HashMap<>();
        for (int i = 2950; i < 3000; i++) {
            expected.put("k" + (i % 50), "v" + i);
        }
        assertEquals(expected, latest(seen));
    }

    @Test
    void keylessRecord_inACompactedTopic_refusedAsKafkaDoes() throws Exception {
        start(Map.of());
        broker.createTopic("keyed", COMPACT);
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("keyed", null, "no key")).get(30, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRecordException.class, e.getCause());
            producer.send(new ProducerRecord<>("keyed", "k", "keyed")).get(30, TimeUnit.SECONDS);
        }
        assertEquals(1, readAll("keyed", 0).size());
    }

    @Test
    void listOffsetsAndDeleteRecords_overCompactedData() throws Exception {
        start(Map.of());
        Map<String, String> config = new HashMap<>(COMPACT);
        config.put("cleanup.policy", "compact,delete");
        broker.createTopic("both", config);
        produce("both", 0, 200, 10);
        List<ConsumerRecord<String, String>> before = readAll("both", 0);
        broker.cleanUntil("one record per key", () -> readsOneRecordPerKey("both", 10));
        TopicPartition tp = new TopicPartition("both", 0);

        long byTime = broker.admin().listOffsets(Map.of(tp, OffsetSpec.forTimestamp(before.get(50).timestamp())))
                .partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        assertTrue(byTime >= 190 && byTime <= before.get(190).offset(), "the first record left at or after the "
                + "timestamp: " + byTime);
        assertEquals(200, broker.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset());

        long low = broker.admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(195))).lowWatermarks().get(tp)
                .get(30, TimeUnit.SECONDS).lowWatermark();

        assertEquals(195, low);
        assertEquals(195, broker.admin().listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset());
        List<ConsumerRecord<String, String>> left = readAll("both", 195);
        assertEquals(List.of(195L, 196L, 197L, 198L, 199L), left.stream().map(ConsumerRecord::offset).toList());
    }

    @Test
    void deleteRecords_onACompactOnlyTopic_isAPolicyViolation() throws Exception {
        start(Map.of());
        broker.createTopic("compact-only", COMPACT);
        produce("compact-only", 0, 10, 5);
        TopicPartition tp = new TopicPartition("compact-only", 0);
        ExecutionException e = assertThrows(ExecutionException.class, () -> broker.admin().deleteRecords(Map.of(tp,
                RecordsToDelete.beforeOffset(5))).lowWatermarks().get(tp).get(30, TimeUnit.SECONDS));
        assertInstanceOf(PolicyViolationException.class, e.getCause());
    }

    @Test
    void cleanupPolicy_changedToCompactOnALiveTopic_compactsIt() throws Exception {
        start(Map.of());
        broker.createTopic("switched", Map.of("segment.ms", "100", "min.cleanable.dirty.ratio", "0.01"));
        produce("switched", 0, 100, 5);
        assertTrue(broker.broker().logCleaner().cleanNow().isEmpty(), "a delete topic is not compacted");

        KafkaCli cli = new KafkaCli(dir.resolve("cli"));
        KafkaCli.Result altered = cli.run("kafka.admin.ConfigCommand", "--bootstrap-server", broker.bootstrap(),
                "--alter", "--entity-type", "topics", "--entity-name", "switched", "--add-config",
                "cleanup.policy=compact");
        assertEquals(0, altered.exitCode(), altered.toString());
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "switched");
        assertEquals("compact", broker.admin().describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS)
                .get(topic).get("cleanup.policy").value());

        broker.cleanUntil("one record per key", () -> readsOneRecordPerKey("switched", 5));

        broker.admin().incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy",
                "delete"), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>("switched", null, "keyless again")).get(30, TimeUnit.SECONDS);
        }
    }
}
