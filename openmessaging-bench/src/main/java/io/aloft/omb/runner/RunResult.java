package io.aloft.omb.runner;

import java.util.Map;

/**
 * What one workload run measured.
 *
 * <p>Contract: {@link #figures()} is ordered, its keys are stable names with the unit in the name
 * (e.g. {@code publishMBps}, {@code publishLatencyP99Ms}), so a comparison can line up two runs.
 */
public record RunResult(String workload, Map<String, Double> figures) {
    public String toJson() {
        throw new UnsupportedOperationException("not written yet");
    }
}
