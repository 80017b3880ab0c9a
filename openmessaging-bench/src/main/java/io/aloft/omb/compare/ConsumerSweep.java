package io.aloft.omb.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code compare --consumers 1,4,16}: each selected step run once per consumer count, as steps of
 * their own named {@code <step>-<n>c} with the workload's {@code consumerPerSubscription} set to
 * {@code n} (a step's {@code rateFrom} and {@code relativeTo} follow to the same count's variant),
 * and a summary table per step with one row per count and figure: the README's rows. Immutable.
 */
final class ConsumerSweep {
    static final String CONSUMERS_FIELD = "consumerPerSubscription";
    /** The summary's figures, those a step measured, in this order. */
    static final List<String> SUMMARY_FIGURES = List.of("consumeRateMsgs", "consumeMBps", "e2eLatencyP50Ms",
            "e2eLatencyP99Ms", "redeliveryLatencyP50Ms", "redeliveryLatencyP99Ms", "unreleasedRedeliveries");

    private final List<Integer> counts;

    ConsumerSweep(List<Integer> counts) {
        if (counts.isEmpty()) {
            throw new IllegalArgumentException("no consumer counts");
        }
        this.counts = List.copyOf(counts);
    }

    static String name(String step, int consumers) {
        return step + "-" + consumers + "c";
    }

    /** The steps, each once per count, in plan order and then count order. */
    List<ComparePlan.Step> expand(List<ComparePlan.Step> steps) {
        List<ComparePlan.Step> out = new ArrayList<>();
        for (ComparePlan.Step s : steps) {
            for (int n : counts) {
                Map<String, String> overrides = new LinkedHashMap<>(s.overrides());
                overrides.put(CONSUMERS_FIELD, Integer.toString(n));
                out.add(new ComparePlan.Step(name(s.name(), n), s.workload(), s.driver(), overrides,
                        s.quickOverrides(), s.rateFrom() == null ? null : name(s.rateFrom(), n), s.rateFraction(),
                        s.relativeTo() == null ? null : name(s.relativeTo(), n)));
            }
        }
        return out;
    }

    /** One Markdown table per original step: consumers, figure, each system's median, the ratios. */
    String markdown(CompareResult result, List<ComparePlan.Step> original) {
        List<SystemKind[]> pairs = CompareReport.ratioPairs(result.systems());
        StringBuilder md = new StringBuilder();
        for (ComparePlan.Step s : original) {
            md.append("\n## ").append(s.name()).append(" by consumers\n\n| consumers | figure |");
            StringBuilder rule = new StringBuilder("|---:|---|");
            for (SystemKind k : result.systems()) {
                md.append(' ').append(k.label()).append(" |");
                rule.append("---:|");
            }
            for (SystemKind[] p : pairs) {
                md.append(' ').append(p[0].label()).append('/').append(p[1].label()).append(" |");
                rule.append("---:|");
            }
            md.append('\n').append(rule).append('\n');
            for (int n : counts) {
                CompareResult.StepResult step = result.steps().stream()
                        .filter(r -> r.step().name().equals(name(s.name(), n))).findFirst().orElse(null);
                if (step == null) {
                    continue;
                }
                for (String figure : SUMMARY_FIGURES) {
                    if (result.systems().stream().noneMatch(k -> value(step, k, figure) != null)) {
                        continue;
                    }
                    md.append("| ").append(n).append(" | ").append(figure).append(" |");
                    for (SystemKind k : result.systems()) {
                        md.append(' ').append(CompareReport.number(value(step, k, figure))).append(" |");
                    }
                    for (SystemKind[] p : pairs) {
                        Double r = CompareReport.ratio(value(step, p[0], figure), value(step, p[1], figure));
                        md.append(' ').append(r == null || r.isNaN() ? "—" : String.format(Locale.ROOT, "%.2f", r))
                                .append(" |");
                    }
                    md.append('\n');
                }
            }
        }
        return md.toString();
    }

    private static Double value(CompareResult.StepResult step, SystemKind s, String figure) {
        return step.medians().getOrDefault(s, Map.of()).get(figure);
    }
}
