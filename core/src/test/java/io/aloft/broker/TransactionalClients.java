package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka-clients steps the transaction tests on one {@link TestBroker} share (TransactionsTest,
 * TransactionVersion2Test): a transactional producer, one record to each partition, the
 * coordinator's description of a transaction, and reading partitions at an isolation level
 * (ReadCommittedTest's consumers too).
 *
 * <p>Stateless; each call makes and closes its own clients but the producer it returns.
 */
final class TransactionalClients {
    private TransactionalClients() {
    }

    static void createTopic(TestBroker broker, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** A producer with {@code transactionalId} and String keys and values; its transactions not initialized. */
    static KafkaProducer<String, String> producer(TestBroker broker, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(p);
    }

    /** DescribeTransactions of {@code transactionalId}, as its coordinator answers. */
    static TransactionDescription describe(TestBroker broker, String transactionalId) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            return admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** One record "prefix-N" (no key) to each partition N of {@code partitions}, waiting for each. */
    static void sendToEach(KafkaProducer<String, String> producer, List<TopicPartition> partitions, String prefix)
            throws Exception {
        for (TopicPartition tp : partitions) {
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, prefix + "-" + tp.partition()))
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Reads each partition of {@code ends} from its start at {@code isolation} ("read_committed" or
     * "read_uncommitted") until its position reaches its offset there; the records in the order read.
     */
    static List<ConsumerRecord<String, String>> readUpTo(TestBroker broker, String isolation,
            Map<TopicPartition, Long> ends) {
        return read(broker, isolation, List.copyOf(ends.keySet()), c -> ends);
    }

    /**
     * Reads {@code partitions} from their start at {@code isolation} until each position reaches the
     * end offset the consumer finds when it starts (read_committed: the last stable offset).
     */
    static List<ConsumerRecord<String, String>> readToEnd(TestBroker broker, String isolation,
            List<TopicPartition> partitions) {
        return read(broker, isolation, partitions, c -> c.endOffsets(partitions));
    }

    /**
     * A consumer (no group) of {@code broker} at {@code isolation} ("read_committed" or
     * "read_uncommitted"), String keys and values, fetches waiting at most 200 ms; nothing assigned.
     */
    static KafkaConsumer<String, String> consumer(TestBroker broker, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        return new KafkaConsumer<>(p);
    }

    private static List<ConsumerRecord<String, String>> read(TestBroker broker, String isolation,
            List<TopicPartition> partitions, Function<KafkaConsumer<String, String>, Map<TopicPartition, Long>> end) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(broker, isolation)) {
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = end.apply(c);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "positions never reached " + ends + ": "
                        + partitions.stream().map(c::position).toList());
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** The values of {@code records}, in their order. */
    static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
