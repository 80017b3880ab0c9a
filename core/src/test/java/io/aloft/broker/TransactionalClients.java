package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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
        List<TopicPartition> partitions = List.copyOf(ends.keySet());
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(broker, isolation)) {
            c.assign(partitions);
            c.seekToBeginning(partitions);
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

    /**
     * Reads {@code partitions} from their start at {@code isolation} until each position reaches the
     * high watermark as it is when reading starts. Not the consumer's own end offset: at
     * read_committed that is the last stable offset, which is short of the last transaction while
     * its markers are still being written (they are written after EndTxn answers), so a read that
     * stops there right after a commit would miss that transaction. A read_committed position gets
     * to the high watermark only once no transaction below it is open.
     */
    static List<ConsumerRecord<String, String>> readToEnd(TestBroker broker, String isolation,
            List<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, Long> highWatermarks = new java.util.HashMap<>();
        try (Admin admin = Admin.create(broker.clientProps())) {
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
            partitions.forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> highWatermarks.put(tp, info.offset()));
        }
        return readUpTo(broker, isolation, highWatermarks);
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

    /** The values of {@code records}, in their order. */
    static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
