package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.fetch.FetchSessionConfig;
import io.aloft.broker.lifecycle.ProcessExit;
import io.aloft.controller.TestQuorum;
import io.aloft.metrics.Http;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A broker's /healthz and /readyz through its start: alive at once, ready only once it serves. */
class BrokerHealthTest {

    @Test
    void readyz_isFalseWhileTheWalRecovers_andTrueOnceTheBrokerServes(@TempDir Path dir) throws Exception {
        int port = TestQuorum.freePort();
        Map<String, String> props = TestBroker.defaults(dir, Map.of("metrics.listener", "http://127.0.0.1:" + port));
        CountDownLatch walOpening = new CountDownLatch(1);
        CountDownLatch letWalOpen = new CountDownLatch(1);
        CompletableFuture<Broker> started = CompletableFuture.supplyAsync(() -> {
            try {
                return Broker.start(props, ProcessExit.keepRunning(), (path, options) -> {
                    walOpening.countDown();
                    try {
                        letWalOpen.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return FileChannel.open(path, options);
                }, FetchSessionConfig.MIN_EVICTION_MS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Broker broker = null;
        try {
            assertTrue(walOpening.await(60, TimeUnit.SECONDS), "the broker reached its WAL");
            HttpResponse<String> ready = Http.get(port, "/readyz");
            assertEquals(503, ready.statusCode());
            assertEquals("not ready: " + Broker.WAL_RECOVERED + ", " + Broker.REGISTERED + ", " + Broker.SERVING
                    + "\n", ready.body());
            assertEquals(200, Http.get(port, "/healthz").statusCode(), "alive while starting");

            letWalOpen.countDown();
            broker = started.get(60, TimeUnit.SECONDS);
            ready = Http.get(port, "/readyz");
            assertEquals(200, ready.statusCode(), ready.body());
            assertEquals(200, Http.get(port, "/healthz").statusCode());
            assertEquals(port, broker.metrics().port().getAsInt());
        } finally {
            letWalOpen.countDown();
            if (broker == null) {
                broker = started.get(60, TimeUnit.SECONDS);
            }
            broker.close();
        }
        // Closed with the broker: the port is free again.
        assertThrows(java.net.ConnectException.class, () -> Http.get(port, "/healthz"));
    }

    @Test
    void healthzAndReadyz_answerWhileProducersLoadTheBroker(@TempDir Path dir) throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of("metrics.listener", "http://127.0.0.1:0"))) {
            int port = broker.broker().metrics().port().getAsInt();
            java.util.Properties pp = broker.clientProps();
            pp.put("linger.ms", "0");
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicLong acked = new java.util.concurrent.atomic.AtomicLong();
            List<Thread> producers = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(pp,
                            new org.apache.kafka.common.serialization.ByteArraySerializer(),
                            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                        byte[] value = new byte[1024];
                        while (!stop.get()) {
                            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("loaded", value),
                                    (md, e) -> {
                                        if (e == null) {
                                            acked.incrementAndGet();
                                        }
                                    });
                        }
                    }
                }, "load-" + t);
                thread.start();
                producers.add(thread);
            }
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (acked.get() < 10_000 && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(50); // until the load is really on
                }
                assertTrue(acked.get() >= 10_000, "the producers load the broker: " + acked.get());
                for (int i = 0; i < 20; i++) {
                    assertEquals(200, Http.get(port, "/healthz").statusCode());
                    assertEquals(200, Http.get(port, "/readyz").statusCode());
                }
            } finally {
                stop.set(true);
                for (Thread thread : producers) {
                    thread.join(30_000);
                }
            }
        }
    }
}
