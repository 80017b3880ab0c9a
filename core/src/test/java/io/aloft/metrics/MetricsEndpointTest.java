package io.aloft.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {

    private static MetricsEndpoint start(List<String> readiness) throws IOException {
        return MetricsEndpoint.start(MetricsConfig.fromProperties(Map.of("metrics.listener", "http://127.0.0.1:0")),
                readiness);
    }

    @Test
    void metrics_inPrometheusText_passPromtool() throws Exception {
        try (MetricsEndpoint endpoint = start(List.of())) {
            io.micrometer.core.instrument.Counter.builder("aloft.test.requests").tag("api", "Produce")
                    .description("Requests of a test").register(endpoint.registry()).increment(3);
            HttpResponse<String> r = Http.get(endpoint.port().getAsInt(), "/metrics");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                    r.headers().toString());
            assertTrue(r.body().contains("aloft_test_requests_total{api=\"Produce\"} 3.0"), r.body());
            assertTrue(r.body().contains("jvm_memory_used_bytes"), "the JVM's meters are registered");
            PromTool.Result check = PromTool.checkMetrics(r.body());
            assertEquals(0, check.exitCode(), check.output());
        }
    }

    @Test
    void metrics_inOpenMetrics_whenTheScraperAsks() throws Exception {
        try (MetricsEndpoint endpoint = start(List.of())) {
            endpoint.registry().counter("aloft.test.requests").increment();
            HttpResponse<String> r = Http.get(endpoint.port().getAsInt(), "/metrics",
                    "application/openmetrics-text; version=1.0.0; charset=utf-8");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"),
                    r.headers().toString());
            assertTrue(r.body().endsWith("# EOF\n"), "OpenMetrics ends with # EOF");
            assertTrue(r.body().contains("aloft_test_requests_total 1.0"), r.body());
        }
    }

    @Test
    void healthz_followsLiveness() throws Exception {
        try (MetricsEndpoint endpoint = start(List.of())) {
            AtomicBoolean alive = new AtomicBoolean(true);
            endpoint.health().livenessFrom(alive::get);
            int port = endpoint.port().getAsInt();
            assertEquals(200, Http.get(port, "/healthz").statusCode());
            alive.set(false);
            HttpResponse<String> r = Http.get(port, "/healthz");
            assertEquals(503, r.statusCode());
            assertEquals("failed\n", r.body());
            assertEquals(503, Http.get(port, "/readyz").statusCode(), "a failed process is not ready either");
        }
    }

    @Test
    void readyz_namesWhatIsMissing_inOrder_untilEveryConditionHolds() throws Exception {
        try (MetricsEndpoint endpoint = start(List.of("wal recovered", "registered"))) {
            int port = endpoint.port().getAsInt();
            HttpResponse<String> r = Http.get(port, "/readyz");
            assertEquals(503, r.statusCode());
            assertEquals("not ready: wal recovered, registered\n", r.body());
            endpoint.health().done("wal recovered");
            AtomicBoolean lease = new AtomicBoolean(false);
            endpoint.health().readyWhen("registered", lease::get);
            assertEquals("not ready: registered\n", Http.get(port, "/readyz").body());
            lease.set(true);
            r = Http.get(port, "/readyz");
            assertEquals(200, r.statusCode());
            assertEquals("ready\n", r.body());
            lease.set(false); // a condition checked on every probe: a lost lease makes it unready again
            assertEquals(503, Http.get(port, "/readyz").statusCode());
        }
    }

    @Test
    void otherPathsAndMethods_areRefused() throws Exception {
        try (MetricsEndpoint endpoint = start(List.of())) {
            int port = endpoint.port().getAsInt();
            assertEquals(404, Http.get(port, "/nope").statusCode());
            HttpResponse<String> post = Http.send(port, "POST", "/metrics");
            assertEquals(405, post.statusCode());
            assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
            assertEquals(200, Http.send(port, "HEAD", "/healthz").statusCode());
        }
    }

    @Test
    void noListener_noServer() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(MetricsConfig.fromProperties(Map.of()), List.of())) {
            assertTrue(endpoint.port().isEmpty());
            endpoint.registry().counter("aloft.test.requests").increment(); // meters still work
            assertTrue(endpoint.metrics().scrape().contains("aloft_test_requests_total 1.0"));
        }
    }

    @Test
    void aPortInUse_failsNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            MetricsConfig config = MetricsConfig.fromProperties(
                    Map.of("metrics.listener", "http://127.0.0.1:" + taken.getLocalPort()));
            IOException e = assertThrows(IOException.class, () -> MetricsEndpoint.start(config, List.of()));
            assertTrue(e.getMessage().startsWith("metrics.listener=http://127.0.0.1:" + taken.getLocalPort()),
                    e.getMessage());
        }
    }

    @Test
    void badListeners_failNamingTheKey() {
        for (String bad : List.of("127.0.0.1:9464", "https://127.0.0.1:9464", "http://127.0.0.1", "http://:9464",
                "http://127.0.0.1:9464/metrics", "http://127.0.0.1:70000", "not a url")) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> MetricsConfig.fromProperties(Map.of("metrics.listener", bad)), bad);
            assertTrue(e.getMessage().startsWith("metrics.listener"), e.getMessage());
        }
        assertFalse(MetricsConfig.fromProperties(Map.of("metrics.listener", "")).listener().isPresent());
        assertEquals(new MetricsConfig.HttpAddress("::1", 9464),
                MetricsConfig.fromProperties(Map.of("metrics.listener", "http://[::1]:9464")).listener().get());
    }
}
