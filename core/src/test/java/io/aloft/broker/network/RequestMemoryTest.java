package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many connections each sending most of a large request (issue 11, item 7: 32 connections sending
 * most of an 80 MiB frame drove direct memory to 2.2 GB and ended in OutOfMemoryError), scaled to
 * this machine: 24 connections, 12 MiB frames, a 32 MiB {@code queued.max.request.bytes}. Only as
 * many frames as fit are read at once, the others' connections stop reading until memory is freed;
 * direct memory does not grow with the frames; every request is answered once its sender completes
 * it; and the broker serves other clients afterwards with all memory given back.
 */
class RequestMemoryTest {
    private static final int FRAME = 12 << 20;
    private static final long POOL = 32 << 20;
    private static final int CONNECTIONS = 24;
    /** Direct memory the read buffers of the network threads may take (Netty's pooled chunks). */
    private static final long DIRECT_SLACK = 32 << 20;

    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("socket.request.max.bytes", Integer.toString(16 << 20),
                "queued.max.request.bytes", Long.toString(POOL)));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static long directMemory() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    @Test
    void manyLargeSlowRequests_areReadWithinThePool_andAllAnswered() throws Exception {
        byte[] frame = ApiVersionsFrames.frame(FRAME, 11);
        int mostOf = 4 + FRAME * 3 / 4;
        int port = broker.broker().port("PLAINTEXT");
        long directBefore = directMemory();
        long maxDirect = directBefore;

        CountDownLatch finish = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS);
        List<Future<Short>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                answers.add(clients.submit(() -> {
                    try (Socket s = ApiVersionsFrames.connect(port)) {
                        s.setSoTimeout(120_000);
                        // Blocks while the broker does not read this connection.
                        ApiVersionsFrames.write(s, frame, 0, mostOf);
                        finish.await();
                        ApiVersionsFrames.write(s, frame, mostOf, frame.length);
                        return ApiVersionsFrames.readErrorCode(s, 11);
                    }
                }));
            }
            // Every connection has announced its frame: two fit in the pool, the others wait for memory.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int admitted = (int) (POOL / FRAME);
            while (true) {
                KafkaServer.RequestMemoryStats m = broker.broker().requestMemoryStats();
                maxDirect = Math.max(maxDirect, directMemory());
                if (m.waiting() == CONNECTIONS - admitted && m.used() == (long) admitted * FRAME) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "connections never all waited: " + m);
                Thread.onSpinWait();
            }
            finish.countDown();
            for (Future<Short> f : answers) {
                while (!f.isDone()) {
                    maxDirect = Math.max(maxDirect, directMemory());
                    assertTrue(System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(60), "a request was not answered");
                    Thread.onSpinWait();
                }
                assertEquals(Errors.NONE.code(), f.get(), "every complete request is answered");
            }
        } finally {
            finish.countDown();
            clients.shutdownNow();
        }

        KafkaServer.RequestMemoryStats m = broker.broker().requestMemoryStats();
        assertEquals(POOL, m.capacity());
        assertTrue(m.peak() <= POOL, "request bytes held never exceed the pool: " + m);
        assertTrue(maxDirect - directBefore <= DIRECT_SLACK, "direct memory grew by " + (maxDirect - directBefore)
                + " bytes for " + CONNECTIONS + " connections sending " + mostOf + " bytes each");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (broker.broker().requestMemoryStats().used() != 0) {
            assertTrue(System.nanoTime() < deadline, "memory not given back: " + broker.broker().requestMemoryStats());
            Thread.onSpinWait();
        }
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("after-flood", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }
}
