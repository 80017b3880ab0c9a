package io.aloft.bench.cluster;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** Reads a kafka-clients client's own counters (request and fetch totals). Stateless. */
public final class ClientMetrics {
    private ClientMetrics() {
    }

    /**
     * The client-wide value of metric {@code name} in {@code group} (the one tagged with the client
     * id alone, not a per-node or per-topic one), or NaN when the client has none.
     */
    public static double total(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            if (e.getKey().group().equals(group) && e.getKey().name().equals(name) && e.getKey().tags().size() <= 1) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return Double.NaN;
    }
}
