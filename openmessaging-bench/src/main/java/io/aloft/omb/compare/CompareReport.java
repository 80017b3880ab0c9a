package io.aloft.omb.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns a {@link CompareResult} into the Markdown report (one table per step: each system's median,
 * then Aloft/Kafka for each pair of an Aloft and a Kafka variant) and into JSON with every run.
 * Stateless.
 */
public final class CompareReport {
    private static final String MISSING = "—";

    private CompareReport() {
    }

    /** "Aloft/Kafka" columns: every Aloft variant over every Kafka variant, in run order. */
    static List<SystemKind[]> ratioPairs(List<SystemKind> systems) {
        List<SystemKind[]> pairs = new ArrayList<>();
        for (SystemKind a : systems) {
            if (!a.isKafka()) {
                for (SystemKind k : systems) {
                    if (k.isKafka()) {
                        pairs.add(new SystemKind[] {a, k});
                    }
                }
            }
        }
        return pairs;
    }

    /** {@code a / k}, or null when either is missing or the denominator is zero. */
    static Double ratio(Double a, Double k) {
        return a == null || k == null || k == 0 ? null : a / k;
    }

    public static String markdown(CompareResult result) {
        StringBuilder md = new StringBuilder("# Aloft vs Apache Kafka: OpenMessaging Benchmark workloads\n\n");
        md.append("Machine:\n").append(result.machine().toMarkdown()).append('\n');
        md.append("Systems, each started fresh (new data directory) for every run, with the same JVM flags:\n");
        for (SystemKind s : result.systems()) {
            md.append("- ").append(s.label()).append(": ")
                    .append(result.descriptions().getOrDefault(s, "(never started)")).append('\n');
        }
        md.append('\n').append(String.format(Locale.ROOT, "Each figure is the median over %d repeat%s (for an "
                + "even count, the mean of the middle two); the order alternated: %s on odd repeats, the reverse on "
                + "even ones. Ratios are Aloft/Kafka whatever the figure: above 1 is better for throughput, worse "
                + "for latency.%n", result.repeats(), result.repeats() == 1 ? "" : "s", order(result.systems())));
        if (result.quick()) {
            md.append("\n**--quick**: durations shortened; a smoke check of the harness, not a measurement.\n");
        }
        List<SystemKind[]> pairs = ratioPairs(result.systems());
        for (CompareResult.StepResult step : result.steps()) {
            md.append("\n## ").append(step.step().name()).append("\n\n");
            md.append("Workload `").append(step.step().workload().getFileName()).append("`, driver `")
                    .append(step.step().driver().getFileName()).append('`');
            Map<String, String> overrides = step.runs().isEmpty() ? Map.of() : step.runs().get(0).overrides();
            if (!overrides.isEmpty()) {
                md.append(", overrides ").append(overrides);
            }
            md.append(".\n");
            if (step.rateNote() != null) {
                md.append(step.rateNote()).append(".\n");
            }
            md.append('\n').append(table(step, result.systems(), pairs));
            List<CompareResult.Run> failed = step.runs().stream().filter(r -> !r.ok()).toList();
            if (!failed.isEmpty()) {
                md.append("\nFailed runs (left out of the medians):\n");
                for (CompareResult.Run r : failed) {
                    md.append("- repeat ").append(r.repeat()).append(", ").append(r.system().cliName()).append(": ")
                            .append(r.error().replace('\n', ' ')).append('\n');
                }
            }
        }
        return md.toString();
    }

    private static String order(List<SystemKind> systems) {
        return String.join(" then ", systems.stream().map(SystemKind::label).toList());
    }

    static String table(CompareResult.StepResult step, List<SystemKind> systems, List<SystemKind[]> pairs) {
        StringBuilder t = new StringBuilder("| figure |");
        StringBuilder rule = new StringBuilder("|---|");
        for (SystemKind s : systems) {
            t.append(' ').append(s.label()).append(" |");
            rule.append("---:|");
        }
        for (SystemKind[] p : pairs) {
            t.append(' ').append(p[0].label()).append('/').append(p[1].label()).append(" |");
            rule.append("---:|");
        }
        t.append('\n').append(rule).append('\n');
        for (String figure : figures(step, systems)) {
            t.append("| ").append(figure).append(" |");
            for (SystemKind s : systems) {
                t.append(' ').append(number(value(step, s, figure))).append(" |");
            }
            for (SystemKind[] p : pairs) {
                Double r = ratio(value(step, p[0], figure), value(step, p[1], figure));
                t.append(' ').append(r == null ? MISSING : String.format(Locale.ROOT, "%.2f", r)).append(" |");
            }
            t.append('\n');
        }
        return t.toString();
    }

    private static Set<String> figures(CompareResult.StepResult step, List<SystemKind> systems) {
        Set<String> names = new LinkedHashSet<>();
        for (SystemKind s : systems) {
            names.addAll(step.medians().getOrDefault(s, Map.of()).keySet());
        }
        return names;
    }

    private static Double value(CompareResult.StepResult step, SystemKind s, String figure) {
        return step.medians().getOrDefault(s, Map.of()).get(figure);
    }

    static String number(Double v) {
        if (v == null || v.isNaN()) {
            return MISSING;
        }
        double a = Math.abs(v);
        String format = a >= 1000 ? "%.0f" : a >= 100 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, format, v);
    }

    /** Everything, including each run, as pretty-printed JSON. */
    public static String json(CompareResult result) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("machine", result.machine());
        root.put("systems", result.systems().stream().map(SystemKind::cliName).toList());
        Map<String, String> descriptions = new LinkedHashMap<>();
        result.descriptions().forEach((k, v) -> descriptions.put(k.cliName(), v));
        root.put("descriptions", descriptions);
        root.put("repeats", result.repeats());
        root.put("quick", result.quick());
        List<Map<String, Object>> steps = new ArrayList<>();
        for (CompareResult.StepResult step : result.steps()) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", step.step().name());
            s.put("workload", step.step().workload().toString());
            s.put("driver", step.step().driver().toString());
            s.put("producerRate", step.producerRate());
            s.put("rateNote", step.rateNote());
            Map<String, Object> medians = new LinkedHashMap<>();
            step.medians().forEach((k, v) -> medians.put(k.cliName(), v));
            s.put("medians", medians);
            Map<String, Object> ratios = new LinkedHashMap<>();
            for (SystemKind[] p : ratioPairs(result.systems())) {
                Map<String, Double> r = new LinkedHashMap<>();
                for (String figure : figures(step, result.systems())) {
                    r.put(figure, ratio(value(step, p[0], figure), value(step, p[1], figure)));
                }
                ratios.put(p[0].cliName() + "/" + p[1].cliName(), r);
            }
            s.put("ratios", ratios);
            List<Map<String, Object>> runs = new ArrayList<>();
            for (CompareResult.Run r : step.runs()) {
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("repeat", r.repeat());
                run.put("position", r.position());
                run.put("system", r.system().cliName());
                run.put("overrides", r.overrides());
                run.put("seconds", r.seconds());
                run.put("figures", r.figures());
                run.put("error", r.error());
                runs.add(run);
            }
            s.put("runs", runs);
            steps.add(s);
        }
        root.put("steps", steps);
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
