package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM-SHA-256 over raw frames, with a client written here from RFC 5802: the two-step exchange in
 * SaslAuthenticate (KIP-152) and as bare tokens after SaslHandshake v0, the server's signature checked;
 * a request between the two steps gets ILLEGAL_SASL_STATE and no data, then the close; a wrong proof gets
 * SASL_AUTHENTICATION_FAILED with Kafka's message, then the close.
 */
class SaslScramFramingTest {
    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-256",
                "connection.failed.authentication.delay.ms", "0"));
        port = broker.broker().port("SASL_PLAINTEXT");
        try (Admin a = Admin.create(broker.clientProps())) {
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

    /** RFC 5802's client: keeps what the final message and the server's signature need. */
    private static final class Client {
        final String password;
        final String first = "n=alice,r=fyko+d2lbbFgONRv9qkxdawL";
        String withoutProof;
        byte[] saltedPassword;
        String authMessage;

        Client(String password) {
            this.password = password;
        }

        byte[] first() {
            return ("n,," + first).getBytes(StandardCharsets.UTF_8);
        }

        byte[] last(byte[] serverFirst) throws Exception {
            String sf = new String(serverFirst, StandardCharsets.UTF_8);
            Map<String, String> attrs = new java.util.HashMap<>();
            for (String part : sf.split(",")) {
                attrs.put(part.substring(0, 1), part.substring(2));
            }
            assertTrue(attrs.get("r").startsWith("fyko+d2lbbFgONRv9qkxdawL"), sf);
            byte[] salt = Base64.getDecoder().decode(attrs.get("s"));
            int iterations = Integer.parseInt(attrs.get("i"));
            saltedPassword = hi(password.getBytes(StandardCharsets.UTF_8), salt, iterations);
            withoutProof = "c=biws,r=" + attrs.get("r");
            authMessage = first + "," + sf + "," + withoutProof;
            byte[] clientKey = hmac(saltedPassword, "Client Key");
            byte[] signature = hmac(MessageDigest.getInstance("SHA-256").digest(clientKey), authMessage);
            for (int i = 0; i < clientKey.length; i++) {
                clientKey[i] ^= signature[i];
            }
            return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(clientKey))
                    .getBytes(StandardCharsets.UTF_8);
        }

        void verify(byte[] serverFinal) throws Exception {
            String expected = "v=" + Base64.getEncoder().encodeToString(hmac(hmac(saltedPassword, "Server Key"),
                    authMessage));
            assertEquals(expected, new String(serverFinal, StandardCharsets.UTF_8));
        }

        private static byte[] hi(byte[] password, byte[] salt, int iterations) throws Exception {
            byte[] u = hmac(password, ByteBuffer.allocate(salt.length + 4).put(salt).putInt(1).array());
            byte[] out = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = hmac(password, u);
                for (int j = 0; j < out.length; j++) {
                    out[j] ^= u[j];
                }
            }
            return out;
        }

        private static byte[] hmac(byte[] key, String data) throws Exception {
            return hmac(key, data.getBytes(StandardCharsets.UTF_8));
        }

        private static byte[] hmac(byte[] key, byte[] data) throws Exception {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        }
    }

    private static MetadataRequest metadata() {
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 12);
    }

    @Test
    void saslAuthenticateTwoSteps_thenServed() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(SaslPlainTest.handshake("SCRAM-SHA-256",
                    (short) 1))).error());
            Client c = new Client("alice-secret");
            SaslAuthenticateResponse first = wire.send(SaslPlainTest.authenticate(c.first(), (short) 2));
            assertEquals(Errors.NONE, first.error());
            SaslAuthenticateResponse last = wire.send(SaslPlainTest.authenticate(c.last(first.saslAuthBytes()),
                    (short) 2));
            assertEquals(Errors.NONE, last.error());
            c.verify(last.saslAuthBytes());
            assertEquals(1, ((MetadataResponse) wire.send(metadata())).brokers().size());
        }
    }

    @Test
    void handshakeV0_rawTokens_thenServed() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(SaslPlainTest.handshake("SCRAM-SHA-256",
                    (short) 0))).error());
            Client c = new Client("alice-secret");
            wire.writeFrame(c.first());
            wire.writeFrame(c.last(wire.readFrame()));
            c.verify(wire.readFrame());
            assertEquals(1, ((MetadataResponse) wire.send(metadata())).brokers().size());
        }
    }

    /** As Kafka: ILLEGAL_SASL_STATE and no data, then the close. */
    @Test
    void requestBetweenTheSteps_illegalSaslStateThenClosed() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            wire.send(SaslPlainTest.handshake("SCRAM-SHA-256", (short) 1));
            Client c = new Client("alice-secret");
            assertEquals(Errors.NONE, ((SaslAuthenticateResponse) wire.send(SaslPlainTest.authenticate(c.first(),
                    (short) 2))).error());
            MetadataResponse refused = wire.send(new MetadataRequest.Builder(new MetadataRequestData().setTopics(
                    List.of(new MetadataRequestData.MetadataRequestTopic().setName("secret")))).build((short) 12));
            assertTrue(refused.data().brokers().isEmpty());
            assertEquals(Map.of(Errors.ILLEGAL_SASL_STATE, 1), refused.errorCounts());
            assertTrue(wire.closedWithoutData());
        }
    }

    @Test
    void wrongProof_failedThenClosed() throws Exception {
        try (SaslWire wire = new SaslWire(port)) {
            wire.send(SaslPlainTest.handshake("SCRAM-SHA-256", (short) 1));
            Client c = new Client("not-alice-secret");
            SaslAuthenticateResponse first = wire.send(SaslPlainTest.authenticate(c.first(), (short) 2));
            SaslAuthenticateResponse last = wire.send(SaslPlainTest.authenticate(c.last(first.saslAuthBytes()),
                    (short) 2));
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED, last.error());
            assertEquals("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                    + "SCRAM-SHA-256", last.errorMessage());
            assertTrue(wire.closedWithoutData());
        }
    }
}
