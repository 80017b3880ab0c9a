package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import io.aloft.servers.ApacheKafkaServer;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code socket.request.max.bytes} limits the frame's size field, which does not count its own 4
 * bytes: a request whose size field equals the limit is answered, one byte more closes the
 * connection. The same bytes sent to Apache Kafka 4.3.1 with the same limit get the same treatment.
 */
class RequestSizeLimitTest {
    private static final int LIMIT = 8192;

    @TempDir
    static Path dir;
    static TestBroker aloft;
    static ApacheKafkaServer kafka;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir.resolve("aloft"), Map.of("socket.request.max.bytes", Integer.toString(LIMIT)));
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                Files.createDirectories(dir.resolve("kafka")), Map.of("socket.request.max.bytes",
                        Integer.toString(LIMIT)), Duration.ofSeconds(120));
        kafka.start();
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
        if (kafka != null) {
            kafka.stop();
        }
    }

    private static int port(String bootstrap) {
        return Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    }

    /** The error code a request of exactly {@code size} bytes gets, or null when the connection is closed instead. */
    private static Short send(String bootstrap, int size) throws Exception {
        try (Socket s = ApiVersionsFrames.connect(port(bootstrap))) {
            return ApiVersionsFrames.roundTrip(s, size, 7);
        }
    }

    @Test
    void sizeFieldEqualToTheLimit_isAnswered_byAloftAndByKafka() throws Exception {
        assertEquals(LIMIT, ApiVersionsFrames.frame(LIMIT, 7).length - 4);
        assertEquals(Errors.NONE.code(), send(aloft.bootstrap(), LIMIT), "Aloft");
        assertEquals(Errors.NONE.code(), send(kafka.bootstrap(), LIMIT), kafka.description());
    }

    @Test
    void sizeFieldOneOverTheLimit_closesTheConnection_inAloftAndInKafka() throws Exception {
        assertNull(send(aloft.bootstrap(), LIMIT + 1), "Aloft");
        assertNull(send(kafka.bootstrap(), LIMIT + 1), kafka.description());
        // Refused on the prefix: the connection is closed even though the body never comes.
        try (Socket s = ApiVersionsFrames.connect(port(aloft.bootstrap()))) {
            ApiVersionsFrames.write(s, new byte[] {0, 0, (byte) (LIMIT + 1 >> 8), (byte) (LIMIT + 1)}, 0, 4);
            assertTrue(ApiVersionsFrames.closedByPeer(s));
        }
        // The broker still answers.
        assertEquals(Errors.NONE.code(), send(aloft.bootstrap(), 100));
    }
}
