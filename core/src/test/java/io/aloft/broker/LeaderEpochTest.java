package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OffsetForLeaderEpoch with the real consumer (issue 11, item 4). A partition's leader epoch changes
 * when its broker starts again; a consumer positioned with the epoch of the records it consumed
 * validates its position against the broker (KIP-320) before it fetches: within the old epoch's
 * range it goes on reading, beyond it (as if the log had been truncated) it reports the truncation
 * with the offset where the old epoch really ended.
 */
class LeaderEpochTest {
    private static final String TOPIC = "epochs";

    @TempDir
    Path dir;

    @Test
    void consumer_afterTheLeaderEpochChanged_validatesItsPositionAgainstTheBroker() throws Exception {
        // A fixed client port: the consumer keeps its bootstrap address across the broker's restart.
        Map<String, String> fixedPort = Map.of("listeners", "PLAINTEXT://127.0.0.1:" + TestQuorum.freePort());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        TestBroker broker = new TestBroker(dir, fixedPort);
        int firstEpoch;
        try {
            try (Admin admin = Admin.create(broker.clientProps())) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            produce(broker.bootstrap(), 0, 10);
            firstEpoch = readAll(broker.bootstrap(), tp, 10).get(9).leaderEpoch().orElseThrow();
        } finally {
            broker.close();
        }
        broker = broker.restart();
        try {
            produce(broker.bootstrap(), 10, 5);
            List<ConsumerRecord<String, String>> all = readAll(broker.bootstrap(), tp, 15);
            int secondEpoch = all.get(14).leaderEpoch().orElseThrow();
            assertTrue(secondEpoch > firstEpoch, "a new run of the broker serves the partition with a new epoch: "
                    + firstEpoch + " then " + secondEpoch);

            // Consumed up to 5 in the first epoch: that epoch ends at 10, so the position is valid.
            try (KafkaConsumer<String, String> c = consumer(broker.bootstrap())) {
                c.assign(List.of(tp));
                c.seek(tp, new OffsetAndMetadata(5, Optional.of(firstEpoch), ""));
                List<ConsumerRecord<String, String>> got = poll(c, 10);
                assertEquals(5, got.get(0).offset());
                assertEquals("v14", got.get(9).value());
            }
            // Positioned at 12 in the first epoch, which ended at 10: the log "lost" 10-11 for this
            // consumer, and it says so rather than silently skip or re-read.
            try (KafkaConsumer<String, String> c = consumer(broker.bootstrap())) {
                c.assign(List.of(tp));
                c.seek(tp, new OffsetAndMetadata(12, Optional.of(firstEpoch), ""));
                LogTruncationException e = assertThrows(LogTruncationException.class, () -> poll(c, 1));
                assertEquals(10, e.divergentOffsets().get(tp).offset());
                assertEquals(Optional.of(firstEpoch), e.divergentOffsets().get(tp).leaderEpoch());
            }
        } finally {
            broker.close();
        }
    }

    private static void produce(String bootstrap, int from, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p);
    }

    private static List<ConsumerRecord<String, String>> readAll(String bootstrap, TopicPartition tp, int count) {
        try (KafkaConsumer<String, String> c = consumer(bootstrap)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            return poll(c, count);
        }
    }

    /** Polls until {@code count} records arrived (failing after 60 s). */
    private static List<ConsumerRecord<String, String>> poll(KafkaConsumer<String, String> c, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (out.size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + out.size() + " of " + count + " records within 60 s");
            }
            c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }
}
