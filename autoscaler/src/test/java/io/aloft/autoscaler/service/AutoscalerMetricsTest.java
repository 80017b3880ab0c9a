package io.aloft.autoscaler.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.scaling.Decision;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The autoscaler's own /metrics: the names the README lists, with the values recorded. */
class AutoscalerMetricsTest {

    @Test
    void served_withTheDocumentedNamesAndValues() throws Exception {
        try (AutoscalerMetrics metrics = new AutoscalerMetrics()) {
            int port = metrics.serve("http://127.0.0.1:0");
            metrics.snapshot(new ClusterSnapshot(0, List.of(BrokerLoad.ofNetwork(1, null, 1000, 0),
                    new BrokerLoad(2, java.util.Optional.empty(), 500, 0, Double.NaN, Double.NaN, Double.NaN,
                            Double.NaN, Double.NaN, false)), List.of()));
            metrics.decision(new Decision(Decision.Action.SCALE_OUT, 2, 3, "targetTracking[0]", "high"));
            metrics.decision(Decision.none(3, "cooldown", "wait"));
            metrics.moves(5, 3, 1, 1);
            metrics.scaling("out", true, Duration.ofSeconds(12));
            metrics.evaluation().record(Duration.ofMillis(40));
            assertEquals(1, metrics.decisions(Decision.Action.SCALE_OUT));

            String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(text.contains("aloft_autoscaler_decisions_total{action=\"SCALE_OUT\",rule=\"targetTracking\"} 1.0"),
                    text);
            assertTrue(text.contains("aloft_autoscaler_decisions_total{action=\"NONE\",rule=\"cooldown\"} 1.0"), text);
            assertTrue(text.contains("aloft_autoscaler_moves_total{result=\"done\"} 3.0"), text);
            assertTrue(text.contains("aloft_autoscaler_moves_total{result=\"deferred\"} 1.0"), text);
            assertTrue(text.contains("aloft_autoscaler_plan_moves 5.0"), text);
            assertTrue(text.contains("aloft_autoscaler_brokers 2.0"), text);
            assertTrue(text.contains("aloft_autoscaler_ready_brokers 1.0"), text);
            assertTrue(text.contains("aloft_autoscaler_cluster_bytes_in_per_second 1500.0"), text);
            assertTrue(text.contains("aloft_autoscaler_scaling_seconds_count{direction=\"out\",result=\"done\"} 1"), text);
            assertTrue(text.contains("aloft_autoscaler_evaluation_seconds_count 1"), text);
        }
    }
}
