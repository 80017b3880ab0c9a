package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.handler.ApiVersionsHandler;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.Errors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Garbage frames cost a bounded number of log lines (issue 11, item 7: one client wrote 120,000
 * WARN lines, 29.5 MB, in 70 s): 10,000 garbage frames over 100 connections, each connection
 * writing its 100 frames at once. Each connection is closed at its first bad frame and logs at
 * most that one line (and a summary of the frames read behind it), those lines pass a broker-wide
 * token bucket, and what it held back is reported in a periodic "suppressed N" line. Another
 * client is served throughout.
 *
 * <p>Runs a {@link KafkaServer} of its own, with the real ApiVersions handler, so the summary
 * period can be short; real sockets, Log4j 2's own appender API to capture the lines.
 */
class BadFrameLoggingTest {
    private static final int CONNECTIONS = 100;
    private static final int FRAMES_PER_CONNECTION = 100;

    /** Every line logged by the network package. */
    private static final class Capture extends AbstractAppender {
        final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();

        Capture() {
            super("bad-frame-capture", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            if (event.getLoggerName().startsWith("io.aloft.broker.network")) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        }
    }

    private final Capture capture = new Capture();
    private KafkaServer server;

    @BeforeEach
    void start() throws Exception {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        capture.start();
        context.getConfiguration().getRootLogger().addAppender(capture, Level.WARN, null);
        context.updateLoggers();
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        dispatcher.set(new RequestDispatcher(List.of(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()))));
        KafkaServer.Settings defaults = KafkaServer.Settings.defaults(65536);
        KafkaServer.Settings settings = new KafkaServer.Settings(defaults.maxRequestBytes(),
                defaults.queuedMaxRequestBytes(), defaults.connectionQueuedMaxRequestBytes(),
                defaults.connectionsMaxIdleMs(), defaults.maxConnections(), defaults.maxConnectionsPerIp(),
                defaults.maxConnectionsPerIpOverrides(), Duration.ofMillis(500));
        server = KafkaServer.start(List.of(new KafkaServer.Listener("PLAINTEXT", "127.0.0.1", 0)), settings, 2,
                dispatcher.get(), (t, e) -> { });
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(capture.getName());
        context.updateLoggers();
        capture.stop();
    }

    /** {@code count} frames of random bytes (an unknown API key, or a header cut short), and some of a bad size. */
    private static byte[] garbage(Random random, int count) {
        ByteBuffer out = ByteBuffer.allocate(count * 64);
        for (int i = 0; i < count; i++) {
            int size = 1 + random.nextInt(40);
            out.putInt(size);
            byte[] junk = new byte[size];
            random.nextBytes(junk);
            junk[0] = 0x7f; // API key 0x7fxx: no such API, whatever follows
            out.put(junk);
        }
        if (random.nextBoolean()) {
            out.putInt(random.nextBoolean() ? -1 : 1 << 30); // a size no frame may have
        }
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    @Test
    void tenThousandGarbageFrames_logABoundedNumberOfLines_andOthersAreServed() throws Exception {
        int port = server.port("PLAINTEXT");
        Random random = new Random(42);
        try (Socket bystander = ApiVersionsFrames.connect(port)) {
            for (int c = 0; c < CONNECTIONS; c++) {
                try (Socket s = ApiVersionsFrames.connect(port)) {
                    byte[] frames = garbage(random, FRAMES_PER_CONNECTION);
                    ApiVersionsFrames.write(s, frames, 0, frames.length);
                    assertTrue(ApiVersionsFrames.closedByPeer(s), "a bad frame closes its connection");
                }
                if (c % 10 == 0) {
                    assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(bystander, 100, c));
                }
            }
            assertEquals(Errors.NONE.code(), ApiVersionsFrames.roundTrip(bystander, 100, -1));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (capture.lines.stream().noneMatch(l -> l.contains("Suppressed"))) {
            assertTrue(System.nanoTime() < deadline, "no 'suppressed' summary: " + capture.lines);
            Thread.onSpinWait();
        }
        List<String> lines = List.copyOf(capture.lines);
        // 10 at once, one more per 6 s, one summary per 0.5 s with something suppressed: far below 100.
        assertTrue(lines.size() <= 40, lines.size() + " lines: " + lines);
        long perConnection = lines.stream().filter(l -> !l.contains("Suppressed")).count();
        assertTrue(perConnection >= 10, "the first bad frames are logged, up to the burst: " + lines);
        long suppressed = lines.stream().filter(l -> l.contains("Suppressed"))
                .mapToLong(l -> Long.parseLong(l.replaceAll(".*Suppressed (\\d+) .*", "$1"))).sum();
        assertTrue(suppressed >= CONNECTIONS - 40, "the suppressed lines are counted: " + lines);
    }
}
