package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL/PLAIN on a SASL_PLAINTEXT listener (issue 20), with real kafka-clients and raw frames: round
 * trips, wrong password and unknown user, no request served before authentication, the v0 and v1
 * framings, unsupported mechanisms, and bad frames closing only their connection.
 */
class SaslPlainTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\" user_bob=\"b\\\"ob\";";

    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int saslPort;
    private static int plainPort;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS));
        saslPort = broker.broker().port("SASL_PLAINTEXT");
        plainPort = broker.broker().port("PLAINTEXT");
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Properties client(String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + saslPort);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + password.replace("\"", "\\\"") + "\";");
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return p;
    }

    @Test
    void produceConsumeAndAdmin_overSaslPlain_roundTrip() throws Exception {
        String topic = "sasl-round-trip";
        try (Admin admin = Admin.create(client("alice", "alice-secret"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
        }
        Properties pp = client("bob", "b\"ob");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Properties cp = client("alice", "alice-secret");
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "sasl-group");
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
            consumer.commitSync();
        }
        assertEquals(10, seen);
    }

    @Test
    void describeConfigs_hidesTheJaasConfig() throws Exception {
        try (Admin admin = Admin.create(client("alice", "alice-secret"))) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            ConfigEntry jaas = config.get("listener.name.sasl_plaintext.plain.sasl.jaas.config");
            assertTrue(jaas != null && jaas.isSensitive(), String.valueOf(jaas));
            assertEquals(null, jaas.value());
            assertEquals("PLAIN", config.get("sasl.enabled.mechanisms").value());
        }
    }

    @Test
    void wrongPassword_saslAuthenticationException() {
        assertAuthenticationFails(client("alice", "not-alice-secret"));
    }

    @Test
    void unknownUser_saslAuthenticationException() {
        assertAuthenticationFails(client("mallory", "alice-secret"));
    }

    private static void assertAuthenticationFails(Properties props) {
        try (Admin admin = Admin.create(props)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            SaslAuthenticationException cause = assertInstanceOf(SaslAuthenticationException.class, e.getCause());
            assertEquals(SaslSession.INVALID_CREDENTIALS, cause.getMessage());
        }
    }

    @Test
    void metadataBeforeAuthentication_connectionClosedWithoutData() throws Exception {
        try (SaslWire wire = new SaslWire(saslPort)) {
            wire.write(new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 12));
            assertTrue(wire.closedWithoutData());
        }
        // After a handshake, still not authenticated: only SaslAuthenticate is served; anything else is
        // answered with ILLEGAL_SASL_STATE (no data) and the connection closed, as Kafka does.
        try (SaslWire wire = new SaslWire(saslPort)) {
            SaslHandshakeResponse hs = wire.send(handshake("PLAIN", (short) 1));
            assertEquals(Errors.NONE, hs.error());
            org.apache.kafka.common.requests.MetadataResponse refused = wire.send(new MetadataRequest.Builder(
                    new MetadataRequestData().setTopics(java.util.List.of(new MetadataRequestData.MetadataRequestTopic()
                            .setName("secret-topic")))).build((short) 12));
            assertEquals(java.util.Map.of(Errors.ILLEGAL_SASL_STATE, 1), refused.errorCounts());
            assertTrue(refused.data().brokers().isEmpty());
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void saslAuthenticateBeforeHandshake_connectionClosed() throws Exception {
        try (SaslWire wire = new SaslWire(saslPort)) {
            wire.write(authenticate(plainToken("", "alice", "alice-secret"), (short) 2));
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void handshakeV1ThenAuthenticate_servesRequests() throws Exception {
        try (SaslWire wire = new SaslWire(saslPort)) {
            ApiVersionsResponse versions = wire.send(new ApiVersionsRequest.Builder().build());
            assertEquals(1, versions.data().apiKeys().find(ApiKeys.SASL_HANDSHAKE.id).maxVersion());
            assertEquals(2, versions.data().apiKeys().find(ApiKeys.SASL_AUTHENTICATE.id).maxVersion());
            SaslHandshakeResponse hs = wire.send(handshake("PLAIN", (short) 1));
            assertEquals(Errors.NONE, hs.error());
            assertEquals(List.of("PLAIN"), hs.enabledMechanisms());
            SaslAuthenticateResponse auth = wire.send(authenticate(plainToken("alice", "alice", "alice-secret"),
                    (short) 2));
            assertEquals(Errors.NONE, auth.error());
            assertEquals(0, auth.data().sessionLifetimeMs());
            MetadataResponse md = wire.send(new MetadataRequest.Builder(new MetadataRequestData().setTopics(null))
                    .build((short) 12));
            assertEquals(1, md.brokers().size());
            // No re-authentication: a second exchange is refused, as Kafka with connections.max.reauth.ms=0.
            SaslHandshakeResponse again = wire.send(handshake("PLAIN", (short) 1));
            assertEquals(Errors.ILLEGAL_SASL_STATE, again.error());
        }
    }

    @Test
    void handshakeV0ThenRawToken_authenticates() throws Exception {
        try (SaslWire wire = new SaslWire(saslPort)) {
            SaslHandshakeResponse hs = wire.send(handshake("PLAIN", (short) 0));
            assertEquals(Errors.NONE, hs.error());
            wire.writeFrame(plainToken("", "alice", "alice-secret"));
            assertArrayEquals(new byte[0], wire.readFrame());
            MetadataResponse md = wire.send(new MetadataRequest.Builder(new MetadataRequestData().setTopics(null))
                    .build((short) 12));
            assertEquals(1, md.brokers().size());
        }
        try (SaslWire wire = new SaslWire(saslPort)) {
            assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(handshake("PLAIN", (short) 0))).error());
            wire.writeFrame(plainToken("", "alice", "wrong"));
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void wrongPasswordRaw_failedAnswerThenClose() throws Exception {
        try (SaslWire wire = new SaslWire(saslPort)) {
            assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(handshake("PLAIN", (short) 1))).error());
            SaslAuthenticateResponse auth = wire.send(authenticate(plainToken("", "alice", "wrong"), (short) 1));
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED, auth.error());
            assertEquals(SaslSession.INVALID_CREDENTIALS, auth.errorMessage());
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void unsupportedMechanism_listsEnabledOnesThenCloses() throws Exception {
        for (short version = 0; version <= 1; version++) {
            try (SaslWire wire = new SaslWire(saslPort)) {
                SaslHandshakeResponse hs = wire.send(handshake("SCRAM-SHA-256", version));
                assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, hs.error());
                assertEquals(List.of("PLAIN"), hs.enabledMechanisms());
                assertTrue(wire.closedWithoutData());
            }
        }
    }

    @Test
    void plaintextListener_saslRequestsGetIllegalSaslState() throws Exception {
        try (SaslWire wire = new SaslWire(plainPort)) {
            SaslHandshakeResponse hs = wire.send(handshake("PLAIN", (short) 1));
            assertEquals(Errors.ILLEGAL_SASL_STATE, hs.error());
            SaslAuthenticateResponse auth = wire.send(authenticate(plainToken("", "alice", "alice-secret"),
                    (short) 2));
            assertEquals(Errors.ILLEGAL_SASL_STATE, auth.error());
        }
    }

    static SaslHandshakeRequest handshake(String mechanism, short version) {
        return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                .build(version);
    }

    static SaslAuthenticateRequest authenticate(byte[] token, short version) {
        return new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                .build(version);
    }

    static byte[] plainToken(String authzid, String user, String password) {
        return (authzid + "\u0000" + user + "\u0000" + password).getBytes(StandardCharsets.UTF_8);
    }
}
