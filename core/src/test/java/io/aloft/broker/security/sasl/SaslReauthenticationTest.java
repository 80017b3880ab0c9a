package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-authentication (KIP-368, {@code connections.max.reauth.ms}) on a SASL_PLAINTEXT listener: the
 * session lifetime in SaslAuthenticate v1+, a second exchange on the same connection, a change of
 * user refused, an expired session closed at its next request, and kafka-clients re-authenticating
 * by themselves while producing.
 */
class SaslReauthenticationTest {
    private static final long REAUTH_MS = 1500;

    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "listener.name.sasl_plaintext.connections.max.reauth.ms", Long.toString(REAUTH_MS),
                "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256",
                "connection.failed.authentication.delay.ms", "0",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\" "
                        + "user_bob=\"bob-secret\";"));
        port = broker.broker().port("SASL_PLAINTEXT");
        Properties admin = broker.clientProps();
        try (Admin a = Admin.create(admin)) {
            a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice", new ScramCredentialInfo(
                    ScramMechanism.SCRAM_SHA_256, 4096), "alice-secret"))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static SaslAuthenticateResponse login(SaslWire wire, String user, String password) throws Exception {
        assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(SaslPlainTest.handshake("PLAIN", (short) 1)))
                .error());
        return wire.send(SaslPlainTest.authenticate(SaslPlainTest.plainToken("", user, password), (short) 2));
    }

    private static MetadataRequest metadata() {
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 12);
    }

    @Test
    void secondExchange_sameUser_renewsTheSession() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            SaslAuthenticateResponse first = login(wire, "alice", "alice-secret");
            assertEquals(Errors.NONE, first.error());
            assertEquals(REAUTH_MS, first.data().sessionLifetimeMs());
            SaslAuthenticateResponse again = login(wire, "alice", "alice-secret");
            assertEquals(Errors.NONE, again.error());
            assertEquals(REAUTH_MS, again.data().sessionLifetimeMs());
            assertEquals(1, ((MetadataResponse) wire.send(metadata())).brokers().size());
        }
    }

    @Test
    void secondExchange_otherUser_failsAndCloses() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            assertEquals(Errors.NONE, login(wire, "alice", "alice-secret").error());
            SaslAuthenticateResponse other = login(wire, "bob", "bob-secret");
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED, other.error());
            assertTrue(other.errorMessage().startsWith("Cannot change principals during re-authentication"),
                    other.errorMessage());
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void expiredSession_nextRequestClosesTheConnection() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            assertEquals(Errors.NONE, login(wire, "alice", "alice-secret").error());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REAUTH_MS);
            while (System.nanoTime() - deadline < TimeUnit.MILLISECONDS.toNanos(100)) {
                Thread.sleep(50); // let the session expire (not a timing assertion)
            }
            wire.write(metadata());
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void kafkaProducer_reauthenticatesWhileProducing() throws Exception {
        producerReauthenticates("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule");
    }

    /** SCRAM's two-step exchange again on the open connection (KIP-368 applies to every mechanism). */
    @Test
    void kafkaProducer_scram_reauthenticatesWhileProducing() throws Exception {
        producerReauthenticates("SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule");
    }

    private static void producerReauthenticates(String mechanism, String loginModule) throws Exception {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        p.put(SaslConfigs.SASL_JAAS_CONFIG, loginModule + " required username=\"alice\" password=\"alice-secret\";");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        int sent = 0;
        double renewed = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            // The client's own count of sessions renewed on an open connection (KIP-368's meter).
            while ((renewed = reauthentications(producer)) < 2 && System.nanoTime() < deadline) {
                producer.send(new ProducerRecord<>("reauth", "k", "v" + sent)).get(30, TimeUnit.SECONDS);
                sent++;
                Thread.sleep(100);
            }
        }
        assertTrue(renewed >= 2, "sessions were not renewed after " + sent + " sends");
    }

    private static double reauthentications(KafkaProducer<?, ?> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("successful-reauthentication-total")
                        && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
