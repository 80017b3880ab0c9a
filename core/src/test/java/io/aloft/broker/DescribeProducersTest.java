package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeProducers (issue 11, item 4) with Kafka's own tool, {@code kafka-transactions.sh
 * describe-producers}, and the Admin client: an idempotent producer's id, epoch and last sequence
 * per partition, nothing for a partition it did not write, and no transaction.
 */
class DescribeProducersTest {
    private static final String TRANSACTIONS_COMMAND = "org.apache.kafka.tools.TransactionsCommand";
    private static final String TOPIC = "described";

    @TempDir
    Path dir;

    @Test
    void describeProducers_withKafkasToolAndAdmin_listsTheIdempotentProducer() throws Exception {
        try (TestBroker broker = new TestBroker(dir); Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                for (int i = 0; i < 4; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, "k", "v" + i)).get(30, TimeUnit.SECONDS);
                }
            }
            TopicPartition written = new TopicPartition(TOPIC, 0);
            List<ProducerState> states = admin.describeProducers(List.of(written)).partitionResult(written)
                    .get(30, TimeUnit.SECONDS).activeProducers();
            assertEquals(1, states.size(), states.toString());
            ProducerState state = states.get(0);
            assertEquals(3, state.lastSequence(), "four records, one batch each: sequences 0 to 3");
            assertTrue(state.currentTransactionStartOffset().isEmpty());
            assertTrue(admin.describeProducers(List.of(new TopicPartition(TOPIC, 1))).partitionResult(
                    new TopicPartition(TOPIC, 1)).get(30, TimeUnit.SECONDS).activeProducers().isEmpty());

            KafkaCli.Result out = new KafkaCli(dir.resolve("cli")).run(TRANSACTIONS_COMMAND, "--bootstrap-server",
                    broker.bootstrap(), "describe-producers", "--topic", TOPIC, "--partition", "0");
            assertEquals(0, out.exitCode(), out.toString());
            List<String> lines = out.lines();
            assertTrue(lines.get(0).startsWith("ProducerId"), out.toString());
            String row = lines.stream().filter(l -> l.startsWith(Long.toString(state.producerId()))).findFirst()
                    .orElseThrow(() -> new AssertionError("no row for producer " + state.producerId() + ":\n" + out));
            List<String> cells = List.of(row.trim().split("\\s+"));
            // ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp CurrentTransactionStartOffset
            assertEquals(Integer.toString(state.producerEpoch()), cells.get(1), row);
            assertEquals("3", cells.get(3), row);
            assertEquals("None", cells.get(5), row);
        }
    }
}
