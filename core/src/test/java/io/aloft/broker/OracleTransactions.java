package io.aloft.broker;

import io.aloft.broker.conformance.KafkaOracle;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's own clients on Apache Kafka 4.3.1 (the oracle) and a new single-partition topic there,
 * to write a partition layout with real transactions that a test then compares with Aloft's (see
 * ReadCommittedTest): an Admin, a transactional producer with its transactions initialized and,
 * where asked, a plain producer. Closing it closes the clients.
 *
 * <p>Confined to the test thread.
 */
final class OracleTransactions implements AutoCloseable {
    final String bootstrap = KafkaOracle.bootstrap();
    final String topic;
    final TopicPartition tp;
    final Admin admin;
    final KafkaProducer<String, String> tx;
    /** Null unless asked for. */
    final KafkaProducer<String, String> plain;

    /**
     * Creates the topic {@code prefix} and a unique suffix with {@code topicConfigs}; the
     * transactional id is the topic's name and "-tx".
     */
    OracleTransactions(String prefix, Map<String, String> topicConfigs, boolean withPlain) throws Exception {
        topic = prefix + System.nanoTime();
        tp = new TopicPartition(topic, 0);
        Properties common = new Properties();
        common.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        common.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        common.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        Properties transactional = new Properties();
        transactional.putAll(common);
        transactional.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx");
        admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        KafkaProducer<String, String> txProducer = null;
        KafkaProducer<String, String> plainProducer = null;
        try {
            txProducer = new KafkaProducer<>(transactional);
            plainProducer = withPlain ? new KafkaProducer<>(common) : null;
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(topicConfigs))).all()
                    .get(30, TimeUnit.SECONDS);
            txProducer.initTransactions();
        } catch (Exception | Error e) {
            if (plainProducer != null) {
                plainProducer.close();
            }
            if (txProducer != null) {
                txProducer.close();
            }
            admin.close();
            throw e;
        }
        tx = txProducer;
        plain = plainProducer;
    }

    /** Sends {@code value} (key "k") to partition 0 with {@code producer} and waits for the answer. */
    void send(KafkaProducer<String, String> producer, String value) throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, "k", value)).get();
    }

    /** A transaction of {@code value} alone, committed or aborted. */
    void transaction(String value, boolean commit) throws Exception {
        tx.beginTransaction();
        send(tx, value);
        if (commit) {
            tx.commitTransaction();
        } else {
            tx.abortTransaction();
        }
    }

    @Override
    public void close() {
        if (plain != null) {
            plain.close();
        }
        tx.close();
        admin.close();
    }
}
