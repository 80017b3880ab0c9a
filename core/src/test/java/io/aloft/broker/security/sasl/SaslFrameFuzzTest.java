package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed, oversized and out-of-order SaslHandshake/SaslAuthenticate frames (issue 20): each
 * connection that sends one is closed without being authenticated, and the broker stays up and
 * keeps authenticating good clients (PLAIN and SCRAM frames). A seeded random loop (a fixed seed
 * by default); the seed is in the failure message.
 */
class SaslFrameFuzzTest {
    /** The broker's limit on frames before authentication (Kafka's sasl.server.max.receive.size default). */
    private static final int MAX_UNAUTHENTICATED_FRAME = 524_288;
    /** Fixed, so a run is repeatable; -Daloft.fuzz.seed=N explores others. */
    private static final long SEED = Long.getLong("aloft.fuzz.seed", 20_261_129L);

    @TempDir
    Path dir;

    @Test
    void badSaslFrames_closeTheirConnection_brokerStaysUp() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "connection.failed.authentication.delay.ms", "0",
                "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";"))) {
            int port = broker.broker().port("SASL_PLAINTEXT");
            try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                    broker.clientProps())) {
                admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                        "alice", new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_256, 4096), "alice-secret")))
                        .all().get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            Random random = new Random(SEED);
            for (int i = 0; i < 150; i++) {
                int kind = random.nextInt(9);
                try (SaslWire wire = new SaslWire(port)) {
                    try {
                        sendBad(wire, kind, random);
                    } catch (SocketException e) {
                        continue; // closed by the broker while the bad input was still being sent
                    }
                    // Whatever the broker made of it, a request before authentication must then close
                    // the connection, and nothing may answer it.
                    try {
                        wire.write(metadata());
                    } catch (SocketException e) {
                        continue; // already closed
                    }
                    assertTrue(drainedToClose(wire), "seed " + SEED + ", iteration " + i + ", kind " + kind
                            + ": connection left open");
                }
            }
            // Still up, still authenticating.
            try (SaslWire wire = new SaslWire(port)) {
                assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(SaslPlainTest.handshake("PLAIN",
                        (short) 1))).error());
                assertEquals(Errors.NONE, ((SaslAuthenticateResponse) wire.send(SaslPlainTest.authenticate(
                        SaslPlainTest.plainToken("", "alice", "alice-secret"), (short) 2))).error());
                MetadataResponse md = wire.send(metadata());
                assertEquals(1, md.brokers().size());
            }
        }
    }

    private static MetadataRequest metadata() {
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 12);
    }

    private static void sendBad(SaslWire wire, int kind, Random random) throws IOException {
        switch (kind) {
            case 0 -> { // random bytes as a frame
                byte[] junk = new byte[random.nextInt(64)];
                random.nextBytes(junk);
                wire.writeFrame(junk);
            }
            case 1 -> { // a SaslAuthenticate cut short, or with its body's bytes flipped
                byte[] frame = frameOf(wire, SaslPlainTest.authenticate(SaslPlainTest.plainToken("", "alice",
                        "alice-secret"), (short) (random.nextInt(3))));
                if (random.nextBoolean()) {
                    frame = Arrays.copyOf(frame, 1 + random.nextInt(frame.length - 1));
                } else {
                    // In the token or after it: a flip in the client id would leave a good request.
                    int tail = "\u0000alice\u0000alice-secret".length() + 1;
                    frame[frame.length - 1 - random.nextInt(tail)] ^= (byte) (1 + random.nextInt(255));
                }
                assertEquals(Errors.NONE, ((SaslHandshakeResponse) wire.send(SaslPlainTest.handshake("PLAIN",
                        (short) 1))).error());
                wire.writeFrame(frame);
            }
            case 2 -> { // SaslAuthenticate before any handshake
                wire.write(SaslPlainTest.authenticate(SaslPlainTest.plainToken("", "alice", "alice-secret"),
                        (short) 1));
            }
            case 3 -> { // a second handshake where the token is due
                wire.send(SaslPlainTest.handshake("PLAIN", (short) 1));
                wire.write(SaslPlainTest.handshake("PLAIN", (short) 1));
            }
            case 4 -> { // a random token (garbage, or too many/few NULs)
                byte[] token = new byte[random.nextInt(40)];
                random.nextBytes(token);
                wire.send(SaslPlainTest.handshake("PLAIN", (short) 1));
                wire.write(SaslPlainTest.authenticate(token, (short) 2));
            }
            case 5 -> { // a frame larger than allowed before authentication
                wire.writeFrame(new byte[MAX_UNAUTHENTICATED_FRAME + 1 + random.nextInt(100)]);
            }
            case 7 -> { // SCRAM: a garbled or random client-first message (v1 or v0 framing)
                short version = (short) random.nextInt(2);
                wire.send(SaslPlainTest.handshake("SCRAM-SHA-256", version));
                byte[] first = random.nextBoolean() ? garble("n,,n=alice,r=nonce123".getBytes(
                        java.nio.charset.StandardCharsets.UTF_8), random) : randomBytes(random, 60);
                if (version == 0) {
                    wire.writeFrame(first);
                } else {
                    wire.write(SaslPlainTest.authenticate(first, (short) 2));
                }
            }
            case 8 -> { // SCRAM: a good client-first (answered by the server-first), then a random client-final
                wire.send(SaslPlainTest.handshake("SCRAM-SHA-256", (short) 1));
                assertEquals(Errors.NONE, ((SaslAuthenticateResponse) wire.send(SaslPlainTest.authenticate(
                        "n,,n=alice,r=abc".getBytes(java.nio.charset.StandardCharsets.UTF_8), (short) 2))).error());
                wire.write(SaslPlainTest.authenticate(randomBytes(random, 80), (short) 2));
            }
            default -> { // a v0 raw token that is garbage, or a size prefix beyond socket.request.max.bytes
                if (random.nextBoolean()) {
                    wire.send(SaslPlainTest.handshake("PLAIN", (short) 0));
                    byte[] token = new byte[random.nextInt(40)];
                    random.nextBytes(token);
                    wire.writeFrame(token);
                } else {
                    wire.writeRaw(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE - random.nextInt(1000)).array());
                }
            }
        }
    }

    private static byte[] randomBytes(Random random, int max) {
        byte[] b = new byte[random.nextInt(max)];
        random.nextBytes(b);
        return b;
    }

    /** {@code text} with one to three bytes flipped. */
    private static byte[] garble(byte[] text, Random random) {
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
            text[random.nextInt(text.length)] ^= (byte) (1 + random.nextInt(255));
        }
        return text;
    }

    private static byte[] frameOf(SaslWire wire, org.apache.kafka.common.requests.AbstractRequest request) {
        ByteBuffer b = request.serializeWithHeader(new RequestHeader(request.apiKey(), request.version(), "fuzz", 7));
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Reads (and ignores) whatever answers arrive until the broker closes; false if it does not. */
    private static boolean drainedToClose(SaslWire wire) throws IOException {
        try {
            while (true) {
                wire.readFrame();
            }
        } catch (java.io.EOFException | SocketException e) {
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }
}
