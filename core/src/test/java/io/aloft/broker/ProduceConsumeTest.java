package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
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
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** Records produced with the real KafkaProducer come back byte-identical through the real KafkaConsumer. */
class ProduceConsumeTest {
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Properties producerProps(String compression) {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    private static Properties consumerProps() {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return p;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "lz4", "zstd", "snappy"})
    void roundTrip(String compression) throws Exception {
        String topic = "rt-" + compression;
        int partitions = 3;
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        int count = 3000;
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(compression))) {
            for (int i = 0; i < count; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = ("value-" + i + "-" + "x".repeat(i % 200)).getBytes(StandardCharsets.UTF_8);
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, i % partitions, key, value);
                r.headers().add(new RecordHeader("h", new byte[] {(byte) i}));
                sent.add(producer.send(r));
            }
            producer.flush();
        }
        long[] expectedNext = new long[partitions];
        for (Future<RecordMetadata> f : sent) {
            RecordMetadata m = f.get(30, TimeUnit.SECONDS);
            assertEquals(expectedNext[m.partition()], m.offset(), "offsets are dense per partition");
            expectedNext[m.partition()]++;
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (got.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            }
            assertEquals(count, got.size());
            long[] next = new long[partitions];
            for (ConsumerRecord<byte[], byte[]> r : got) {
                assertEquals(next[r.partition()]++, r.offset(), "in order, no gaps");
                String key = new String(r.key(), StandardCharsets.UTF_8);
                int i = Integer.parseInt(key.substring(4));
                assertEquals(i % partitions, r.partition());
                assertArrayEquals(("value-" + i + "-" + "x".repeat(i % 200)).getBytes(StandardCharsets.UTF_8), r.value());
                assertArrayEquals(new byte[] {(byte) i}, r.headers().lastHeader("h").value());
            }
        }
    }

    @org.junit.jupiter.api.Test
    void largeRecordsInLargeBatches() throws Exception {
        String topic = "large";
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = producerProps("none");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
        java.util.Random random = new java.util.Random(7);
        List<byte[]> values = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                // From 10 KiB to ~900 KiB: single-record batches near max.message.bytes, and batches of many.
                byte[] value = new byte[i % 3 == 0 ? 900_000 : 10_240];
                random.nextBytes(value);
                values.add(value);
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, value)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (got.size() < values.size() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            }
            assertEquals(values.size(), got.size());
            for (int i = 0; i < values.size(); i++) {
                assertEquals(i, got.get(i).offset());
                assertArrayEquals(values.get(i), got.get(i).value(), "record " + i);
            }
        }
    }
}
