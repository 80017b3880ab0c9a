package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.TestBroker;
import io.aloft.broker.security.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker with a SASL_SSL listener (issue 20): a real producer, consumer and admin authenticate
 * with PLAIN over TLS and round-trip records; a wrong password or unknown user gets
 * SaslAuthenticationException. The inter-broker listener stays PLAINTEXT (brokers have no SASL
 * credentials yet).
 */
class SaslSslTest {
    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int port;
    private static Path clientTrust;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path server = certs.identity("server", "CN=localhost,O=Aloft");
        clientTrust = certs.trustStore("client-trust.p12", "PKCS12", server);
        broker = new TestBroker(dir.resolve("broker"), Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", server.toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD,
                "connection.failed.authentication.delay.ms", "0",
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";"));
        port = broker.broker().port("SASL_SSL");
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    static Properties client(int port, Path trustStore, String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trustStore.toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return p;
    }

    @Test
    void produceConsume_overSaslSsl_roundTrip() throws Exception {
        String topic = "sasl-ssl-round-trip";
        try (Admin admin = Admin.create(client(port, clientTrust, "alice", "alice-secret"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = client(port, clientTrust, "alice", "alice-secret");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Properties cp = client(port, clientTrust, "alice", "alice-secret");
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "sasl-ssl-group");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        int seen = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (seen < 10 && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                for (var r : records) {
                    assertEquals("v" + seen, r.value());
                    seen++;
                }
            }
        }
        assertEquals(10, seen);
    }

    @Test
    void wrongPasswordOrUnknownUser_saslAuthenticationException() {
        for (Properties props : List.of(client(port, clientTrust, "alice", "wrong"),
                client(port, clientTrust, "mallory", "alice-secret"))) {
            try (Admin admin = Admin.create(props)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
                SaslAuthenticationException cause = assertInstanceOf(SaslAuthenticationException.class, e.getCause());
                assertEquals(SaslSession.INVALID_CREDENTIALS, cause.getMessage());
            }
        }
    }
}
