package io.aloft.autoscaler.policy;

import java.util.Objects;

/**
 * {@code scaling.targetTracking[i]}: keep a per-broker signal near a target. The count wanted is
 * {@code ceil(total / target)}; a scale-in is wanted only when, with one broker fewer, the
 * per-broker value would stay under {@code scaleInThresholdPercent} of the target, so a load
 * hovering at the target does not add and remove the same broker.
 *
 * <p>Immutable.
 *
 * @param metric the signal
 * @param target the per-broker value to keep near: bytes per second, or a CPU fraction (0, 1]
 * @param scaleInThresholdPercent in (0, 100], default 90
 */
public record TargetTrackingRule(Metric metric, double target, double scaleInThresholdPercent) {

    /** Default of {@code scaleInThresholdPercent}. */
    public static final double DEFAULT_SCALE_IN_THRESHOLD_PERCENT = 90;

    public TargetTrackingRule {
        Objects.requireNonNull(metric, "metric");
    }
}
