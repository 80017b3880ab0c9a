package io.aloft.omb.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code compare} runs: an ordered list of steps, each one OMB workload file paired with one
 * OMB driver file (OMB keeps the two apart, and the same workload may run with different client
 * settings). Loaded from a small YAML file, by default {@code openmessaging-bench/compare-plan.yaml}:
 *
 * <pre>
 * quickOverrides:                 # applied to every step with --quick
 *   testDurationMinutes: 0.5
 * steps:
 *   - name: max-throughput        # the step's name in the report and for --workloads
 *     workload: compare/workloads/max-throughput.yaml   # relative to the plan file
 *     driver: compare/drivers/kafka-throughput.yaml
 *   - name: latency-50pct
 *     workload: ...
 *     driver: ...
 *     rateFrom: max-throughput    # producerRate = rateFraction x Kafka's publishRateMsgs there
 *     rateFraction: 0.5
 *   - name: topics-1000
 *     ...
 *     overrides: {topics: 1000}   # workload fields replaced on every run of this step
 *     relativeTo: max-throughput  # also report publishMBps as a fraction of that step's
 *     quickOverrides: {...}       # this step's own --quick overrides, on top of the plan's
 * </pre>
 *
 * <p>Immutable. Invalid plans fail at load with a message naming the step and the key.
 */
public record ComparePlan(Path file, Map<String, String> quickOverrides, List<Step> steps) {

    /** One workload with its driver. Immutable. */
    public record Step(String name, Path workload, Path driver, Map<String, String> overrides,
            Map<String, String> quickOverrides, String rateFrom, double rateFraction, String relativeTo) {

        /** True if the producer rate of this step derives from Kafka's maximum in another step. */
        public boolean derivesRate() {
            return rateFrom != null;
        }
    }

    public ComparePlan {
        quickOverrides = Map.copyOf(quickOverrides);
        steps = List.copyOf(steps);
    }

    public Step step(String name) {
        return steps.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no step '" + name + "' in " + file));
    }

    /**
     * Reads and checks a plan: every file exists, names are unique, a step's {@code rateFrom} and
     * {@code relativeTo} name an earlier step, and overrides name workload fields.
     */
    public static ComparePlan load(Path file) throws IOException {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException("cannot read plan " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(file + ": expected a mapping with 'steps'");
        }
        knownKeys(file.toString(), root, Set.of("quickOverrides", "steps"));
        Path base = file.toAbsolutePath().getParent();
        Map<String, String> quick = overrides(file + ": quickOverrides", root.get("quickOverrides"));
        JsonNode stepsNode = root.get("steps");
        if (stepsNode == null || !stepsNode.isArray() || stepsNode.isEmpty()) {
            throw new IllegalArgumentException(file + ": 'steps' must be a non-empty list");
        }
        List<Step> steps = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (JsonNode s : stepsNode) {
            Step step = step(file, base, s, names);
            names.add(step.name());
            steps.add(step);
        }
        return new ComparePlan(file, quick, steps);
    }

    private static Step step(Path file, Path base, JsonNode s, Set<String> earlier) {
        String name = text(file + ": a step", s, "name");
        String where = file + ": step '" + name + "'";
        knownKeys(where, s, Set.of("name", "workload", "driver", "overrides", "quickOverrides", "rateFrom",
                "rateFraction", "relativeTo"));
        if (earlier.contains(name)) {
            throw new IllegalArgumentException(where + " appears twice");
        }
        Path workload = existing(where, "workload", base.resolve(text(where, s, "workload")));
        Path driver = existing(where, "driver", base.resolve(text(where, s, "driver")));
        String rateFrom = s.hasNonNull("rateFrom") ? s.get("rateFrom").asText() : null;
        double fraction = s.hasNonNull("rateFraction") ? s.get("rateFraction").asDouble(Double.NaN) : 0.5;
        if (rateFrom != null && !earlier.contains(rateFrom)) {
            throw new IllegalArgumentException(where + ": rateFrom '" + rateFrom + "' is not an earlier step");
        }
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException(where + ": rateFraction must be in (0, 1]");
        }
        String relativeTo = s.hasNonNull("relativeTo") ? s.get("relativeTo").asText() : null;
        if (relativeTo != null && !earlier.contains(relativeTo)) {
            throw new IllegalArgumentException(where + ": relativeTo '" + relativeTo + "' is not an earlier step");
        }
        return new Step(name, workload, driver, overrides(where + ": overrides", s.get("overrides")),
                overrides(where + ": quickOverrides", s.get("quickOverrides")), rateFrom, fraction, relativeTo);
    }

    private static Map<String, String> overrides(String where, JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping of workload field to value");
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            try {
                WorkloadOverrides.check(e.getKey());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(where + ": " + ex.getMessage(), ex);
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static void knownKeys(String where, JsonNode node, Set<String> known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                throw new IllegalArgumentException(where + ": unknown key '" + key + "' (known: " + known + ")");
            }
        }
    }

    private static String text(String where, JsonNode node, String key) {
        JsonNode v = node.get(key);
        if (v == null || !v.isValueNode() || v.asText().isBlank()) {
            throw new IllegalArgumentException(where + ": '" + key + "' is required");
        }
        return v.asText();
    }

    private static Path existing(String where, String key, Path path) {
        Path p = path.normalize();
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException(where + ": " + key + " file " + p + " does not exist");
        }
        return p;
    }
}
