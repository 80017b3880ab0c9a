package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.S3ServerExtension;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer that starts at the earliest offset after far more was produced than the log cache
 * holds gets every record back, byte-identical and in order, and the old part of the log is read
 * from object storage (the broker's GETs grow) — on the file backend and on a real S3 server.
 */
class CatchUpReadTest {
    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    private static final long LOG_CACHE_BYTES = 16L << 20;
    private static final int VALUE_BYTES = 8 << 10;
    private static final int RECORDS = 6 * 1024; // 48 MiB of values: three log caches' worth
    private static final long PRODUCED_BYTES = (long) RECORDS * VALUE_BYTES;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"file", "s3"})
    void consumerFromEarliestReadsEvictedDataFromObjectStorage(String backend) throws Exception {
        Map<String, String> overrides = new HashMap<>();
        // Stated here, not inherited from TestBroker's defaults, because the assertions below
        // depend on them: the log cache holds a third of what is produced, and seals are small
        // enough that the early data is uploaded (and so evictable) long before the end.
        overrides.put("s3.log.cache.size.bytes", Long.toString(LOG_CACHE_BYTES));
        overrides.put("s3.wal.upload.threshold.bytes", Long.toString(4L << 20));
        overrides.put("s3.block.cache.size.bytes", Long.toString(16L << 20));
        if (backend.equals("s3")) {
            overrides.put("s3.url", S3.newBucketUrl());
        }
        String topic = "catch-up";
        try (TestBroker broker = new TestBroker(dir, overrides)) {
            try (Admin admin = Admin.create(broker.clientProps())) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            produce(broker, topic);

            ObjectStorageStats stats = broker.broker().objectStorageStats();
            // Uploads must have happened, or the read below could not be served from storage.
            assertTrue(stats.requests(Operation.PUT) >= 2, "uploads while producing: " + stats);
            long getsBefore = stats.requests(Operation.GET);
            long getBytesBefore = stats.bytes(Operation.GET);

            consumeAndVerify(broker, topic);

            long gets = stats.requests(Operation.GET) - getsBefore;
            long getBytes = stats.bytes(Operation.GET) - getBytesBefore;
            // Printed for the record (test output file): what a catch-up read costs in requests.
            System.out.printf("%s catch-up read of %d bytes: %d GETs, %d bytes; totals %s%n", backend,
                    PRODUCED_BYTES, gets, getBytes, stats);
            // At most one log cache's worth can have come from memory, so the rest of the
            // records' bytes (random, so incompressible) had to be read from object storage.
            long mustRead = PRODUCED_BYTES - LOG_CACHE_BYTES;
            assertTrue(getBytes >= mustRead, "GET bytes " + getBytes + " < " + mustRead + "; " + stats);
            // And not read over and over: each byte fetched about once (index blocks and
            // readahead past the end add a little).
            assertTrue(getBytes <= 2 * PRODUCED_BYTES, "GET bytes " + getBytes + " for " + PRODUCED_BYTES
                    + " produced; " + stats);
            // Ranged GETs are at most a few MiB each, so 32 MiB needs several; and a sane
            // reader does not issue one per record.
            assertTrue(gets >= mustRead / (8L << 20), "GETs " + gets + "; " + stats);
            assertTrue(gets < RECORDS / 4, "GETs " + gets + " for " + RECORDS + " records; " + stats);
            assertEquals(0, stats.failures(Operation.GET), "no failed GETs: " + stats);
        }
    }

    /** Record {@code i}'s value: random (incompressible) bytes any run can recompute from {@code i}. */
    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        new Random(0x5eed_0000L + i).nextBytes(v);
        return v;
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    private static void produce(TestBroker broker, String topic) throws Exception {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 << 10));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> sent = new ArrayList<>(RECORDS);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, key(i), value(i))));
            }
            producer.flush();
        }
        for (int i = 0; i < RECORDS; i++) {
            assertEquals(i, sent.get(i).get(30, TimeUnit.SECONDS).offset(), "dense offsets in send order");
        }
    }

    private static void consumeAndVerify(TestBroker broker, String topic) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TopicPartition tp = new TopicPartition(topic, 0);
        int next = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            // A bound on the wait only, so a broken read fails instead of hanging the build.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (next < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(next, r.offset(), "in order, no gaps or repeats");
                    assertArrayEquals(key(next), r.key(), "key of offset " + next);
                    assertArrayEquals(value(next), r.value(), "value of offset " + next);
                    next++;
                }
            }
        }
        assertEquals(RECORDS, next, "records read back");
    }
}
