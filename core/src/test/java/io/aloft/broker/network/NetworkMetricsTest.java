package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * The requests by API and version: one count, which the served series
 * ({@code kafka_network_requestmetrics_requests_total}) and {@link NetworkMetrics#requests} both read.
 */
class NetworkMetricsTest {

    @Test
    void requested_byVersion_seriesAndQueryAgree() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        NetworkMetrics metrics = new NetworkMetrics(registry);
        metrics.api(ApiKeys.PRODUCE).requested((short) 9);
        metrics.api(ApiKeys.PRODUCE).requested((short) 9);
        metrics.api(ApiKeys.PRODUCE).requested((short) 11);

        assertEquals(2, metrics.requests(ApiKeys.PRODUCE, (short) 9));
        assertEquals(1, metrics.requests(ApiKeys.PRODUCE, (short) 11));
        assertEquals(0, metrics.requests(ApiKeys.PRODUCE, (short) 10));
        assertEquals(0, metrics.requests(ApiKeys.FETCH, (short) 9));
        assertEquals(2.0, served(registry, "Produce", 9));
        assertEquals(1.0, served(registry, "Produce", 11));
        assertEquals(0, registry.find("kafka.network.requestmetrics.requests").tags("version", "10")
                .functionCounters().size(), "no series for a version never requested");
    }

    /** A counter registered in an empty composite registry counts nothing; these counts do not depend on it. */
    @Test
    void requested_noBackingRegistry_stillCounted() {
        NetworkMetrics metrics = new NetworkMetrics(new CompositeMeterRegistry());
        metrics.api(ApiKeys.END_TXN).requested((short) 5);
        assertEquals(1, metrics.requests(ApiKeys.END_TXN, (short) 5));
    }

    /**
     * Threads meeting an API and version for the first time together all count into the one adder
     * the series reads (each making its own would leave the series short of what they counted).
     */
    @Test
    void requested_racingFirstUse_everyRequestInTheSeries() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        NetworkMetrics metrics = new NetworkMetrics(registry);
        int threads = 4;
        int each = 10_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    metrics.api(ApiKeys.METADATA).requested((short) 12);
                }
            }, "requester-" + t);
            thread.start();
            started.add(thread);
        }
        go.countDown();
        for (Thread thread : started) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertEquals((long) threads * each, metrics.requests(ApiKeys.METADATA, (short) 12));
        assertEquals((double) threads * each, served(registry, "Metadata", 12));
    }

    private static double served(SimpleMeterRegistry registry, String request, int version) {
        return registry.get("kafka.network.requestmetrics.requests").tags("request", request, "version",
                Integer.toString(version)).functionCounter().count();
    }
}
