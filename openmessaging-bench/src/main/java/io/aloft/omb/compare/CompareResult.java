package io.aloft.omb.compare;

import java.util.List;
import java.util.Map;

/**
 * Everything one {@code compare} measured: each run as it happened and the medians per step. Immutable.
 *
 * @param systems in the order of odd repeats (even repeats run them in reverse)
 * @param descriptions one line per system, as its server describes itself
 */
public record CompareResult(MachineInfo machine, List<SystemKind> systems, Map<SystemKind, String> descriptions,
        int repeats, boolean quick, List<StepResult> steps) {

    /** One run of one step on one system. {@code error} is null for a run that finished. */
    public record Run(String step, int repeat, int position, SystemKind system, Map<String, String> overrides,
            Map<String, Double> figures, String error, double seconds) {
        public boolean ok() {
            return error == null;
        }
    }

    /**
     * One step: its runs and, per system, the median of each figure over the runs that finished.
     *
     * @param producerRate the rate set from Kafka's maximum, or null if the step does not derive one
     * @param rateNote how {@code producerRate} was derived, or why it could not be
     */
    public record StepResult(ComparePlan.Step step, Long producerRate, String rateNote, List<Run> runs,
            Map<SystemKind, Map<String, Double>> medians) {
    }

    public CompareResult {
        systems = List.copyOf(systems);
        descriptions = Map.copyOf(descriptions);
        steps = List.copyOf(steps);
    }

    /** The system whose figures are the denominators: the first Kafka variant in the run. */
    public SystemKind referenceKafka() {
        return systems.stream().filter(SystemKind::isKafka).findFirst().orElseThrow();
    }

    public boolean allRunsOk() {
        return steps.stream().flatMap(s -> s.runs().stream()).allMatch(Run::ok);
    }
}
