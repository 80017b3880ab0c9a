package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokers authenticating to each other with SASL/PLAIN (issue 20): two broker processes whose
 * inter-broker listener INTERNAL is SASL_PLAINTEXT (clients use a PLAINTEXT listener beside it).
 * A transaction coordinated on broker 1 that writes to a partition of each broker commits, and a
 * read_committed consumer sees both records: the marker for broker 2's partition went over the
 * SASL listener (WriteTxnMarkers), as did broker 2's check of the produce with the coordinator
 * (AddPartitionsToTxn, KIP-890). A broker 3 that joins with a wrong inter-broker password is
 * refused by broker 1 when it checks a transactional produce with it, and its log says why,
 * naming the key to check, without the password.
 */
class SaslInterBrokerClusterTest {
    private static final String TOPIC = "spanning";
    private static final String STATE_TOPIC = "__transaction_state";
    private static final String JAAS_KEY = "listener.name.internal.plain.sasl.jaas.config";

    @TempDir
    Path dir;

    private static String jaas(String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\""
                + password + "\" user_broker=\"broker-secret\";";
    }

    @Test
    void transactionAcrossBrokers_overASaslInterBrokerListener_commits_andAWrongPasswordIsLogged()
            throws Exception {
        Map<String, String> props = new HashMap<>(Map.of(
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT",
                "inter.broker.listener.name", "INTERNAL",
                "sasl.mechanism.inter.broker.protocol", "PLAIN",
                JAAS_KEY, jaas("broker-secret"),
                "aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "1"));
        Map<Integer, Map<String, String>> perNode = new HashMap<>();
        for (int id = 1; id <= 2; id++) {
            perNode.put(id, new HashMap<>(Map.of("listeners",
                    "PLAINTEXT://127.0.0.1:{port},INTERNAL://127.0.0.1:" + TestQuorum.freePort())));
        }
        try (TestCluster cluster = TestCluster.start(dir, 2, 0, props, perNode);
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> p = producer(cluster, "warm-up")) {
                p.initTransactions(); // creates __transaction_state
            }
            // Partition p on broker p + 1; the coordinator on broker 1.
            moveTo(admin, cluster, new TopicPartition(TOPIC, 0), 1);
            moveTo(admin, cluster, new TopicPartition(TOPIC, 1), 2);
            moveTo(admin, cluster, new TopicPartition(STATE_TOPIC, 0), 1);

            try (KafkaProducer<String, String> p = producer(cluster, "across-1")) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 0, null, "committed-0")).get(60, TimeUnit.SECONDS);
                p.send(new ProducerRecord<>(TOPIC, 1, null, "committed-1")).get(60, TimeUnit.SECONDS);
                p.commitTransaction();
            }
            assertEquals(Map.of(0, List.of("committed-0"), 1, List.of("committed-1")), readCommitted(cluster, admin));

            // Broker 3 joins with a wrong password: other brokers refuse it, so it cannot check a
            // transactional produce with the coordinator (broker 1) over the inter-broker listener.
            cluster.addBroker(3, Map.of("listeners", "PLAINTEXT://127.0.0.1:{port},INTERNAL://127.0.0.1:"
                    + TestQuorum.freePort(), JAAS_KEY, jaas("not-the-password")));
            moveTo(admin, cluster, new TopicPartition(TOPIC, 1), 3);
            KafkaProducer<String, String> p = producer(cluster, "across-3");
            try {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 1, null, "refused-1")); // not answered while refused
                String expected = "refused this broker's SASL_PLAINTEXT authentication on inter-broker listener "
                        + "INTERNAL";
                String line = awaitLogLine(cluster.logFile(3), expected);
                assertTrue(line.contains("ERROR") && line.contains(JAAS_KEY), line);
                assertTrue(!Files.readString(cluster.logFile(3), StandardCharsets.UTF_8).contains("not-the-password"),
                        "the password is not logged");
            } finally {
                p.close(Duration.ofSeconds(1));
            }
        }
    }

    private static KafkaProducer<String, String> producer(TestCluster cluster, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<String, String> consumer(TestCluster cluster) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapAll());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaConsumer<>(p);
    }

    private static void moveTo(Admin admin, TestCluster cluster, TopicPartition tp, int broker) throws Exception {
        if (cluster.leader(tp.topic(), tp.partition()) != broker) {
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(broker)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        cluster.awaitLeader(tp.topic(), tp.partition(), broker, "moving " + tp);
    }

    /** Both partitions as read_committed shows them, once their last stable offsets reach the high watermarks. */
    private static Map<Integer, List<String>> readCommitted(TestCluster cluster, Admin admin) throws Exception {
        List<TopicPartition> tps = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        tps.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<Integer, List<String>> out = new HashMap<>();
        try (KafkaConsumer<String, String> c = consumer(cluster)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Map<TopicPartition, Long> stable;
            while (true) {
                stable = c.endOffsets(tps);
                Map<TopicPartition, Long> high = new HashMap<>();
                admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, r) -> high.put(tp, r.offset()));
                if (stable.equals(high)) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "the transaction stays open: last stable offsets " + stable
                        + ", high watermarks " + high);
                TimeUnit.MILLISECONDS.sleep(200);
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            tps.forEach(tp -> out.put(tp.partition(), new ArrayList<>()));
            Map<TopicPartition, Long> end = stable;
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "positions never reached " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.get(r.partition()).add(r.value());
                }
            }
        }
        return out;
    }

    private static String awaitLogLine(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.contains(text)) {
                    return line;
                }
            }
            assertTrue(System.nanoTime() < deadline, "no line with '" + text + "' in " + log + " within 60 s");
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }
}
