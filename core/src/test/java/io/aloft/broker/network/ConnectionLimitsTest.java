package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code max.connections.per.ip} (with {@code max.connections.per.ip.overrides}) and
 * {@code max.connections}, at small limits, with clients on distinct loopback addresses
 * (127.0.0.x). Over a per-address limit a connection is accepted and closed at once, as in Kafka:
 * the client reads end of stream instead of an answer. At {@code max.connections} the broker stops
 * accepting, as Kafka blocks: the client's request waits until another connection closes.
 */
class ConnectionLimitsTest {
    @TempDir
    static Path dir;
    static TestBroker perIp;
    static TestBroker total;

    @BeforeAll
    static void start() throws Exception {
        perIp = new TestBroker(dir.resolve("per-ip"), Map.of("max.connections.per.ip", "2",
                "max.connections.per.ip.overrides", "127.0.0.2:4,127.0.0.3:0"));
        total = new TestBroker(dir.resolve("total"), Map.of("max.connections", "3"));
    }

    @AfterAll
    static void stop() {
        for (TestBroker b : new TestBroker[] {perIp, total}) {
            if (b != null) {
                b.close();
            }
        }
    }

    private static void closeAll(List<Socket> sockets) throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
    }

    /** Opens connections from {@code address} until one is refused; returns how many were served. */
    private static int servedUntilRefused(int port, String address, List<Socket> open) throws Exception {
        for (int i = 0; i < 10; i++) {
            Socket s = ApiVersionsFrames.connect(port, address);
            open.add(s);
            Short answer = ApiVersionsFrames.roundTrip(s, 100, i);
            if (answer == null) {
                return i;
            }
            assertEquals(Errors.NONE.code(), answer);
        }
        throw new AssertionError("no connection from " + address + " was refused");
    }

    @Test
    void perIpLimit_refusesTheConnectionOverIt_andAcceptsAgainOnceOneCloses() throws Exception {
        int port = perIp.broker().port("PLAINTEXT");
        List<Socket> open = new ArrayList<>();
        try {
            assertEquals(2, servedUntilRefused(port, "127.0.0.1", open));
            open.remove(open.size() - 1).close();
            open.remove(0).close();
            // The close reaches the broker asynchronously: retry until the slot is free.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                Socket s = ApiVersionsFrames.connect(port, "127.0.0.1");
                Short answer = ApiVersionsFrames.roundTrip(s, 100, 99);
                if (answer != null) {
                    open.add(s);
                    assertEquals(Errors.NONE.code(), answer);
                    break;
                }
                s.close();
                assertTrue(System.nanoTime() < deadline, "the freed slot was never reused");
            }
        } finally {
            closeAll(open);
        }
    }

    /** aloft_network_connections_refused_total{limit="max.connections.per.ip"} of the per-address broker. */
    private static double refusedPerIp() {
        return perIp.broker().metrics().registry().get("aloft.network.connections.refused")
                .tag("listener", "PLAINTEXT").tag("limit", "max.connections.per.ip").counter().count();
    }

    @Test
    void perIpOverrides_raiseOrLowerOneAddressesLimit() throws Exception {
        int port = perIp.broker().port("PLAINTEXT");
        List<Socket> open = new ArrayList<>();
        try {
            double refusedBefore = refusedPerIp();
            assertEquals(4, servedUntilRefused(port, "127.0.0.2", open));
            assertEquals(0, servedUntilRefused(port, "127.0.0.3", open));
            assertEquals(2, servedUntilRefused(port, "127.0.0.4", open), "other addresses keep the default");
            assertEquals(3, refusedPerIp() - refusedBefore, "one refusal per address, counted");
        } finally {
            closeAll(open);
        }
    }

    @Test
    void maxConnections_blocksTheNextConnectionUntilOneCloses() throws Exception {
        int port = total.broker().port("PLAINTEXT");
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = ApiVersionsFrames.connect(port, "127.0.0.1" + i);
                open.add(s);
                assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(s, 100, i));
            }
            Socket waiting = ApiVersionsFrames.connect(port, "127.0.0.20"); // the kernel completes the handshake
            open.add(waiting);
            waiting.setSoTimeout(1000);
            byte[] request = ApiVersionsFrames.frame(100, 42);
            ApiVersionsFrames.write(waiting, request, 0, request.length);
            assertThrows(SocketTimeoutException.class, () -> ApiVersionsFrames.readErrorCode(waiting, 42),
                    "not accepted while the broker has max.connections");
            open.remove(0).close();
            waiting.setSoTimeout(15_000);
            assertEquals(Errors.NONE.code(), ApiVersionsFrames.readErrorCode(waiting, 42),
                    "accepted, and answered, once a connection closed");
        } finally {
            closeAll(open);
        }
    }
}
