package io.aloft.autoscaler.policy;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * {@code scaling.step[i]}: like AWS step scaling, the per-broker mean of a signal falls in at most
 * one of non-overlapping ranges, and that range's adjustment adds or removes brokers. Bounds are
 * absolute values of the metric (not offsets from an alarm): lower inclusive, upper exclusive, a
 * missing bound is unbounded.
 *
 * <p>Immutable.
 *
 * @param metric the signal
 * @param thresholds the ranges, sorted by lower bound (validated non-overlapping)
 */
public record StepRule(Metric metric, List<Threshold> thresholds) {

    public StepRule {
        Objects.requireNonNull(metric, "metric");
        thresholds = List.copyOf(thresholds);
    }

    /**
     * One range.
     *
     * @param lowerBound inclusive; empty is minus infinity
     * @param upperBound exclusive; empty is plus infinity
     * @param adjustment brokers to add (positive) or remove (negative), never 0
     */
    public record Threshold(OptionalDouble lowerBound, OptionalDouble upperBound, int adjustment) {

        public Threshold {
            Objects.requireNonNull(lowerBound, "lowerBound");
            Objects.requireNonNull(upperBound, "upperBound");
        }

        /** The lower bound, minus infinity when absent. */
        public double lower() {
            return lowerBound.orElse(Double.NEGATIVE_INFINITY);
        }

        /** The upper bound, plus infinity when absent. */
        public double upper() {
            return upperBound.orElse(Double.POSITIVE_INFINITY);
        }

        /** Whether {@code value} is in [lower, upper). */
        public boolean contains(double value) {
            return value >= lower() && value < upper();
        }
    }
}
