package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand single-partition topics, created in one CreateTopics request and each produced to
 * with acks=all, all exist afterwards and each holds exactly what was written to it.
 */
class ManyTopicsTest {
    private static final int TOPICS = 1000;
    private static final int RECORDS_PER_TOPIC = 2;

    @TempDir
    Path dir;

    private static String topic(int i) {
        return String.format("many-%04d", i);
    }

    @Test
    void thousandTopicsCreatedProducedAndReadable() throws Exception {
        try (TestBroker broker = new TestBroker(dir); Admin admin = Admin.create(broker.clientProps())) {
            List<NewTopic> topics = new ArrayList<>();
            for (int i = 0; i < TOPICS; i++) {
                topics.add(new NewTopic(topic(i), 1, (short) 1));
            }
            // Admin sends these as one CreateTopics request; every topic must succeed.
            long t0 = System.nanoTime();
            admin.createTopics(topics).all().get(120, TimeUnit.SECONDS);
            long t1 = System.nanoTime();
            Set<String> listed = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            for (int i = 0; i < TOPICS; i++) {
                assertTrue(listed.contains(topic(i)), "listed: " + topic(i));
            }

            produce(broker);
            long t2 = System.nanoTime();

            // Every partition's log end is exactly what was produced to it.
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < TOPICS; i++) {
                latest.put(new TopicPartition(topic(i), 0), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS);
            assertEquals(TOPICS, ends.size());
            for (int i = 0; i < TOPICS; i++) {
                assertEquals(RECORDS_PER_TOPIC, ends.get(new TopicPartition(topic(i), 0)).offset(), topic(i));
            }

            // And the records themselves come back, each from the topic it was sent to.
            consumeAll(broker);
            long t3 = System.nanoTime();
            // Printed for the record (test output file): where the time goes at this scale.
            System.out.printf("%d topics: create %d ms, produce %d ms, list offsets + consume %d ms%n", TOPICS,
                    (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
        }
    }

    private static void produce(TestBroker broker) throws Exception {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int r = 0; r < RECORDS_PER_TOPIC; r++) {
                for (int i = 0; i < TOPICS; i++) {
                    sent.add(producer.send(new ProducerRecord<>(topic(i), 0, "k" + r, topic(i) + "/" + r)));
                }
            }
            producer.flush();
        }
        for (int k = 0; k < sent.size(); k++) {
            // Throws if the broker answered with an error; the offset proves the order per topic.
            RecordMetadata m = sent.get(k).get(60, TimeUnit.SECONDS);
            assertEquals(k / TOPICS, m.offset(), m.topic());
        }
    }

    private static void consumeAll(TestBroker broker) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < TOPICS; i++) {
            tps.add(new TopicPartition(topic(i), 0));
        }
        Map<String, List<String>> got = new HashMap<>();
        int total = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            // A bound on the wait only, so a broken read fails instead of hanging the build.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (total < TOPICS * RECORDS_PER_TOPIC && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(java.time.Duration.ofMillis(500))) {
                    got.computeIfAbsent(r.topic(), t -> new ArrayList<>()).add(r.value());
                    total++;
                }
            }
        }
        assertEquals(TOPICS * RECORDS_PER_TOPIC, total, "records consumed");
        for (int i = 0; i < TOPICS; i++) {
            List<String> expected = new ArrayList<>();
            for (int r = 0; r < RECORDS_PER_TOPIC; r++) {
                expected.add(topic(i) + "/" + r);
            }
            assertEquals(expected, got.get(topic(i)), topic(i));
        }
    }
}
