package io.aloft.omb.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aloft.omb.report.ResultTable;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one workload run measured. Immutable.
 *
 * <p>Contract: {@link #figures()} is ordered, its keys are stable names with the unit in the name
 * (e.g. {@code publishMBps}, {@code publishLatencyP99Ms}), so a comparison can line up two runs.
 * A figure that could not be measured (say e2e latency with no subscriptions) is NaN, written
 * as JSON {@code null}. MB is 2^20 bytes. Flags are 1 (yes) or 0 (no).
 *
 * <p>JSON form: {@code {"workload": "...", "figures": {"publishRateMsgs": 1234.5, ...}}}.
 */
public record RunResult(String workload, Map<String, Double> figures) {
    // Figure names: the constants are the contract other code (the compare command) may rely on.
    public static final String PUBLISH_RATE_MSGS = "publishRateMsgs";
    public static final String PUBLISH_MBPS = "publishMBps";
    public static final String CONSUME_RATE_MSGS = "consumeRateMsgs";
    public static final String CONSUME_MBPS = "consumeMBps";
    public static final String PUBLISH_LATENCY_P50_MS = "publishLatencyP50Ms";
    public static final String PUBLISH_LATENCY_P99_MS = "publishLatencyP99Ms";
    public static final String PUBLISH_LATENCY_P999_MS = "publishLatencyP999Ms";
    public static final String PUBLISH_LATENCY_MAX_MS = "publishLatencyMaxMs";
    public static final String E2E_LATENCY_P50_MS = "e2eLatencyP50Ms";
    public static final String E2E_LATENCY_P99_MS = "e2eLatencyP99Ms";
    public static final String E2E_LATENCY_P999_MS = "e2eLatencyP999Ms";
    public static final String E2E_LATENCY_MAX_MS = "e2eLatencyMaxMs";
    public static final String PUBLISH_ERRORS = "publishErrors";
    /** Transactional drivers only: transactions committed per second in the test phase. */
    public static final String COMMIT_RATE_TXNS = "commitRateTxns";
    /** Transactional drivers only: p99 of the commitTransaction call. */
    public static final String COMMIT_LATENCY_P99_MS = "commitLatencyP99Ms";
    /** Share groups with a release fraction: p50 of the time from a release to the record's next delivery. */
    public static final String REDELIVERY_LATENCY_P50_MS = "redeliveryLatencyP50Ms";
    /** Share groups with a release fraction: p99 of the time from a release to the record's next delivery. */
    public static final String REDELIVERY_LATENCY_P99_MS = "redeliveryLatencyP99Ms";
    public static final String BACKLOG_BUILD_MBPS = "backlogBuildMBps";
    public static final String DRAIN_MBPS = "drainMBps";
    public static final String PUBLISH_LATENCY_P99_BEFORE_DRAIN_MS = "publishLatencyP99BeforeDrainMs";
    public static final String PUBLISH_LATENCY_P99_DURING_DRAIN_MS = "publishLatencyP99DuringDrainMs";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public RunResult {
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    }

    /** A figure, or NaN when absent or not measured. */
    public double figure(String name) {
        Double v = figures.get(name);
        return v == null ? Double.NaN : v;
    }

    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("workload", workload);
        ObjectNode f = root.putObject("figures");
        figures.forEach((k, v) -> {
            if (v == null || !Double.isFinite(v)) {
                f.putNull(k);
            } else {
                f.put(k, v);
            }
        });
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serializes", e);
        }
    }

    /** Reads what {@link #toJson} wrote; {@code null} figures come back as NaN. */
    public static RunResult fromJson(String json) {
        try {
            JsonNode root = JSON.readTree(json);
            JsonNode f = root.get("figures");
            if (root.get("workload") == null || f == null || !f.isObject()) {
                throw new IllegalArgumentException("run result JSON needs 'workload' and a 'figures' object");
            }
            Map<String, Double> figures = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = f.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                figures.put(e.getKey(), e.getValue().isNumber() ? e.getValue().asDouble() : Double.NaN);
            }
            return new RunResult(root.get("workload").asText(), figures);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a run result: " + e.getOriginalMessage(), e);
        }
    }

    /** The human-readable table (one figure per row). */
    public String toTable() {
        return ResultTable.format(workload, figures);
    }
}
