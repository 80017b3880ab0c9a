package io.aloft.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.metrics.CostConfig;
import io.aloft.metrics.PromTool;
import io.aloft.metrics.ServerMetrics;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ObjectStorageMetersTest {

    @Test
    void requestLatency_registeredAtAnOperationsFirstTimedRequest_withTwelveBuckets_passesPromtool()
            throws Exception {
        try (ServerMetrics metrics = ServerMetrics.create()) {
            ObjectStorageStats stats = new ObjectStorageStats();
            ObjectStorageMeters.bind(metrics.registry(), "wal", stats,
                    new ObjectStorageCost(CostConfig.fromProperties(Map.of())), () -> 2048, "a test's bytes");
            assertFalse(metrics.scrape().contains("aloft_object_storage_request_latency_seconds"),
                    "no histogram before a request is timed");

            stats.recordRequest(Operation.PUT);
            stats.recordLatency(Operation.PUT, TimeUnit.MILLISECONDS.toNanos(7));
            stats.recordRequest(Operation.PUT);
            stats.recordLatency(Operation.PUT, TimeUnit.SECONDS.toNanos(3));
            String text = metrics.scrape();

            String series = "aloft_object_storage_request_latency_seconds_bucket{operation=\"PUT\",store=\"wal\",";
            assertEquals(13, text.lines().filter(l -> l.startsWith(series)).count(), "12 buckets and +Inf:\n" + text);
            assertTrue(text.contains(series + "le=\"0.01\"} 1"), text);
            assertTrue(text.contains(series + "le=\"5.0\"} 2"), text);
            assertTrue(text.contains("aloft_object_storage_requests_total{operation=\"PUT\",store=\"wal\"} 2.0"));
            assertTrue(text.contains("aloft_object_storage_stored_bytes{store=\"wal\"} 2048.0"), text);
            assertFalse(text.contains("operation=\"GET\",store=\"wal\",le="), "GET was never timed");
            PromTool.Result check = PromTool.checkMetrics(text);
            assertEquals(0, check.exitCode(), check.output());
        }
    }
}
