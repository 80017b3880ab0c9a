package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.interbroker.NetworkInterBrokerClient;
import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.TestCertificates;
import io.aloft.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole broker with SSL listeners, real kafka-clients producers and consumers over TLS: PLAINTEXT
 * and SSL listeners side by side, an SSL-only broker with mutual TLS whose inter-broker listener is
 * SSL, and the settings that stop the broker at start (wrong password, no key store, a SASL_SSL
 * inter-broker listener without its credentials).
 */
class SslBrokerTest {
    @TempDir
    static Path dir;
    private static Path server;
    private static Path alice;
    private static Path brokerTrust;
    private static Path clientTrust;

    @BeforeAll
    static void makeCertificates() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        server = certs.identity("server", "CN=localhost,O=Aloft");
        alice = certs.identity("alice", "CN=alice,OU=Clients,O=Aloft");
        // The broker trusts alice, and itself: its inter-broker client presents its own certificate.
        brokerTrust = certs.trustStore("broker-trust.p12", "PKCS12", alice, server);
        clientTrust = certs.trustStore("client-trust.jks", "JKS", server);
    }

    private static Map<String, String> ssl(Map<String, String> more) {
        Map<String, String> p = new HashMap<>();
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", server.toString());
        p.put("ssl.keystore.password", TestCertificates.PASSWORD);
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", brokerTrust.toString());
        p.put("ssl.truststore.password", TestCertificates.PASSWORD);
        p.putAll(more);
        return p;
    }

    private static Properties client(int port, boolean tls, Path keyStore) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        if (tls) {
            p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, clientTrust.toString());
            p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        }
        if (keyStore != null) {
            p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keyStore.toString());
            p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        }
        return p;
    }

    private static void produce(Properties client, String topic, List<String> values) throws Exception {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> consume(Properties client, String topic, int count) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (out.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
        }
        return out;
    }

    @Test
    void plaintextAndSslListeners_onOneBroker_bothServe() throws Exception {
        try (TestBroker broker = new TestBroker(dir.resolve("both"), ssl(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "listener.name.other.ssl.keystore.key", "-----BEGIN PRIVATE KEY-----secret")))) {
            int plain = broker.broker().port("PLAINTEXT");
            int tls = broker.broker().port("SSL");
            produce(client(tls, true, null), "over-tls", List.of("a", "b", "c"));
            produce(client(plain, false, null), "over-tls", List.of("d"));
            assertEquals(List.of("a", "b", "c", "d"), consume(client(plain, false, null), "over-tls", 4));
            assertEquals(List.of("a", "b", "c", "d"), consume(client(tls, true, null), "over-tls", 4));
            // Metadata over each listener names that listener's address.
            try (Admin admin = Admin.create(client(tls, true, null))) {
                Node node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next();
                assertEquals(tls, node.port());
                // Secrets are not shown by DescribeConfigs: passwords, and inline PEM keys.
                ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
                Config configs = admin.describeConfigs(List.of(self)).all().get(30, TimeUnit.SECONDS).get(self);
                assertEquals(null, configs.get("ssl.keystore.password").value());
                assertEquals(null, configs.get("listener.name.other.ssl.keystore.key").value());
                assertEquals("PKCS12", configs.get("ssl.keystore.type").value());
            }
            // A PLAINTEXT client on the SSL port gets nowhere; it is not served garbage either.
            Properties wrong = client(tls, false, null);
            wrong.put("default.api.timeout.ms", "2000");
            wrong.put("request.timeout.ms", "1000");
            try (Admin admin = Admin.create(wrong)) {
                assertThrows(ExecutionException.class, () -> admin.describeCluster().nodes().get(30,
                        TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void sslOnlyBroker_mutualTls_namedListeners_interBrokerOverTls() throws Exception {
        Map<String, String> props = ssl(Map.of(
                "listeners", "INTERNAL://127.0.0.1:0,EXTERNAL://127.0.0.1:0",
                "listener.security.protocol.map", "INTERNAL:SSL,EXTERNAL:SSL",
                "inter.broker.listener.name", "INTERNAL",
                "listener.name.external.ssl.client.auth", "required",
                "listener.name.internal.ssl.client.auth", "required"));
        try (TestBroker broker = new TestBroker(dir.resolve("ssl-only"), props)) {
            int external = broker.broker().port("EXTERNAL");
            produce(client(external, true, alice), "mtls", List.of("x", "y"));
            assertEquals(List.of("x", "y"), consume(client(external, true, alice), "mtls", 2));
            Properties noCert = client(external, true, null);
            noCert.put("default.api.timeout.ms", "10000");
            noCert.put("request.timeout.ms", "5000");
            try (Admin admin = Admin.create(noCert)) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> admin.describeCluster()
                        .nodes().get(30, TimeUnit.SECONDS));
                assertInstanceOf(SslAuthenticationException.class, e.getCause());
            }
            // What the broker's inter-broker client does: TLS with the listener's settings, its own
            // certificate presented.
            int internal = broker.broker().port("INTERNAL");
            SslConfig internalTls = SslConfig.forListener("INTERNAL", props);
            try (NetworkInterBrokerClient c = new NetworkInterBrokerClient(9, id -> new Node(id, "127.0.0.1",
                    internal), "INTERNAL", internalTls.clientSettings(), r -> {
                        Thread t = new Thread(r, "test-inter-broker-sender");
                        t.setDaemon(true);
                        return t;
                    })) {
                DescribeClusterResponse r = (DescribeClusterResponse) c.send(1, new DescribeClusterRequest.Builder(
                        new DescribeClusterRequestData())).get(30, TimeUnit.SECONDS);
                assertEquals(Errors.NONE.code(), r.data().errorCode());
            }
        }
    }

    private static ConfigException refusedAtStart(String name, Map<String, String> props) {
        return assertThrows(ConfigException.class, () -> new TestBroker(dir.resolve(name), props).close());
    }

    @Test
    void badSettings_stopTheStart_namingTheKey() throws Exception {
        Map<String, String> sslListener = Map.of("listeners", "SSL://127.0.0.1:0");
        Map<String, String> wrongPassword = new HashMap<>(ssl(sslListener));
        wrongPassword.put("ssl.keystore.password", "not-it");
        assertEquals("ssl.keystore.password", refusedAtStart("bad-pass", wrongPassword).key());

        Map<String, String> perListener = new HashMap<>(ssl(sslListener));
        perListener.put("listener.name.ssl.ssl.truststore.password", "not-it");
        assertEquals("listener.name.ssl.ssl.truststore.password", refusedAtStart("bad-trust", perListener).key());

        Map<String, String> noKeyStore = new HashMap<>(ssl(sslListener));
        noKeyStore.remove("ssl.keystore.location");
        assertEquals("ssl.keystore.location", refusedAtStart("no-store", noKeyStore).key());

        Map<String, String> missingFile = new HashMap<>(ssl(sslListener));
        missingFile.put("ssl.keystore.location", dir.resolve("nope.p12").toString());
        ConfigException missing = refusedAtStart("missing-store", missingFile);
        assertEquals("ssl.keystore.location", missing.key());
        assertTrue(missing.getMessage().contains("nope.p12"), missing.getMessage());

        Path notAStore = Files.writeString(dir.resolve("garbage.p12"), "not a key store");
        Map<String, String> garbage = new HashMap<>(ssl(sslListener));
        garbage.put("ssl.keystore.location", notAStore.toString());
        assertEquals("ssl.keystore.location", refusedAtStart("garbage-store", garbage).key());

        // A SASL_SSL inter-broker listener (the first, here) needs the broker's own SASL credentials in its JAAS key.
        ConfigException sasl = refusedAtStart("sasl", Map.of("listeners", "SASL_SSL://127.0.0.1:0"));
        assertEquals("listener.name.sasl_ssl.plain.sasl.jaas.config", sasl.key());

        assertEquals("listener.security.protocol.map", refusedAtStart("unmapped",
                Map.of("listeners", "CLIENTS://127.0.0.1:0")).key());
        assertEquals("inter.broker.listener.name", refusedAtStart("inter", Map.of("listeners",
                "PLAINTEXT://127.0.0.1:0", "inter.broker.listener.name", "OTHER")).key());
    }
}
