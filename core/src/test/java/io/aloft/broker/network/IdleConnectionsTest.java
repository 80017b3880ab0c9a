package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code connections.max.idle.ms}: a connection stalled in the middle of a frame and one that sent
 * nothing since its last answer are closed once the time has passed; one that keeps sending
 * requests stays open.
 */
class IdleConnectionsTest {
    private static final long IDLE_MS = 1500;

    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("connections.max.idle.ms", Long.toString(IDLE_MS)));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void stalledAndIdleConnections_areClosed_activeOneIsNot() throws Exception {
        int port = broker.broker().port("PLAINTEXT");
        try (Socket stalled = ApiVersionsFrames.connect(port); Socket idle = ApiVersionsFrames.connect(port);
                Socket active = ApiVersionsFrames.connect(port)) {
            long start = System.nanoTime();
            byte[] frame = ApiVersionsFrames.frame(1000, 1);
            ApiVersionsFrames.write(stalled, frame, 0, 500); // half a frame, then nothing
            assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(idle, 200, 1));
            // The probes' read timeout paces the active connection's requests.
            stalled.setSoTimeout(100);
            idle.setSoTimeout(100);
            boolean stalledClosed = false;
            boolean idleClosed = false;
            int id = 2;
            long deadline = start + TimeUnit.SECONDS.toNanos(30);
            while (!(stalledClosed && idleClosed) || System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2 * IDLE_MS)) {
                assertTrue(System.nanoTime() < deadline, "stalled closed: " + stalledClosed + ", idle closed: "
                        + idleClosed);
                assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(active, 200, id), "the active one is "
                        + "answered");
                id++;
                stalledClosed = stalledClosed || ApiVersionsFrames.closedByPeer(stalled);
                idleClosed = idleClosed || ApiVersionsFrames.closedByPeer(idle);
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsedMs >= IDLE_MS, "closed only after connections.max.idle.ms");
            assertFalse(active.isInputShutdown());
            assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(active, 200, id));
        }
    }
}
