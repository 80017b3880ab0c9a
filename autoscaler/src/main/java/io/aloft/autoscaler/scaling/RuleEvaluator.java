package io.aloft.autoscaler.scaling;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.Metric;
import io.aloft.autoscaler.policy.StepRule;
import io.aloft.autoscaler.policy.TargetTrackingRule;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Evaluates target-tracking and step rules on a snapshot: pure functions, no state.
 *
 * <p>The cluster's total of a metric is the sum over the snapshot's brokers; brokers that did not
 * report it (NaN) are counted at the mean of those that did, and a rule with no broker reporting
 * has no opinion. The per-broker value is that total over the current broker count (which may
 * include a broker just started and not yet in the snapshot: its capacity is on the way).
 *
 * <p>Stateless; thread-safe.
 */
final class RuleEvaluator {

    /** Floating-point slack so a total exactly at N targets wants N brokers, not N + 1. */
    private static final double EPSILON = 1e-9;

    private RuleEvaluator() {
    }

    /** The cluster total of {@code metric}, extrapolating unreported brokers; empty when none reported. */
    static OptionalDouble total(Metric metric, ClusterSnapshot snapshot) {
        double sum = 0;
        int known = 0;
        for (BrokerLoad broker : snapshot.brokers()) {
            double value = metric.of(broker);
            if (!Double.isNaN(value)) {
                sum += value;
                known++;
            }
        }
        if (known == 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(sum * snapshot.brokers().size() / known);
    }

    /**
     * Target tracking: wants {@code ceil(total / target)} brokers to scale out; to scale in, only
     * when with one broker fewer the per-broker value stays under the scale-in threshold (else it
     * holds the current count, and its vote keeps other rules from scaling in).
     */
    static Optional<Recommendation> targetTracking(int index, TargetTrackingRule rule, ClusterSnapshot snapshot,
            int current) {
        String name = "targetTracking[" + index + "]";
        Metric metric = rule.metric();
        OptionalDouble total = total(metric, snapshot);
        if (total.isEmpty()) {
            return Optional.empty();
        }
        double sum = total.getAsDouble();
        int wanted = Math.max(1, (int) Math.ceil(sum / rule.target() - EPSILON));
        double perBroker = sum / Math.max(1, current);
        String figures = String.format(Locale.ROOT, "%s %s per broker on %d (target %s, total %s)",
                metric.yamlName(), metric.format(perBroker), current, metric.format(rule.target()),
                metric.format(sum));
        if (wanted > current) {
            return Optional.of(new Recommendation(name, wanted, figures + ": needs " + wanted + " brokers"));
        }
        if (wanted < current) {
            double after = sum / (current - 1);
            double threshold = rule.target() * rule.scaleInThresholdPercent() / 100;
            if (after < threshold) {
                return Optional.of(new Recommendation(name, wanted, figures + ": " + wanted
                        + " would do; with one fewer " + metric.format(after) + " per broker, under "
                        + percent(rule.scaleInThresholdPercent()) + " of target"));
            }
            return Optional.of(new Recommendation(name, current, figures + ": hold; with one fewer "
                    + metric.format(after) + " per broker, not under "
                    + percent(rule.scaleInThresholdPercent()) + " of target"));
        }
        return Optional.of(new Recommendation(name, current, figures + ": hold"));
    }

    /** Step scaling: the range holding the per-broker mean adjusts the count; no range, no opinion. */
    static Optional<Recommendation> step(int index, StepRule rule, ClusterSnapshot snapshot, int current) {
        String name = "step[" + index + "]";
        Metric metric = rule.metric();
        OptionalDouble total = total(metric, snapshot);
        if (total.isEmpty()) {
            return Optional.empty();
        }
        double perBroker = total.getAsDouble() / Math.max(1, current);
        for (StepRule.Threshold t : rule.thresholds()) {
            if (t.contains(perBroker)) {
                int wanted = Math.max(1, current + t.adjustment());
                return Optional.of(new Recommendation(name, wanted, String.format(Locale.ROOT,
                        "%s %s per broker on %d in [%s, %s): adjustment %+d", metric.yamlName(),
                        metric.format(perBroker), current, bound(metric, t.lowerBound()),
                        bound(metric, t.upperBound()), t.adjustment())));
            }
        }
        return Optional.empty();
    }

    private static String bound(Metric metric, OptionalDouble bound) {
        return bound.isPresent() ? metric.format(bound.getAsDouble()) : "unbounded";
    }

    private static String percent(double value) {
        return String.format(Locale.ROOT, "%.0f%%", value);
    }
}
