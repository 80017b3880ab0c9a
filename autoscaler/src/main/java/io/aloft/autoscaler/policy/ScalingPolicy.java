package io.aloft.autoscaler.policy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code scaling} section: the rules that decide the broker count, and what holds them back.
 * Precedence (see {@code ScalingDecider}): emergency, then scheduled bounds, then the largest count
 * any target-tracking or step rule wants.
 *
 * <p>Immutable.
 *
 * @param targetTracking {@code scaling.targetTracking[]}, in file order
 * @param step {@code scaling.step[]}, in file order
 * @param scheduled {@code scaling.scheduled[]}, in file order
 * @param emergency {@code scaling.emergency}, absent when not configured
 * @param cooldown {@code scaling.cooldown}
 * @param scaleIn {@code scaling.scaleIn}
 */
public record ScalingPolicy(
        List<TargetTrackingRule> targetTracking,
        List<StepRule> step,
        List<ScheduledRule> scheduled,
        Optional<EmergencyRule> emergency,
        Cooldown cooldown,
        ScaleIn scaleIn) {

    /** No rules: the cluster keeps its size (only min/max and the voters' floor apply). */
    public static final ScalingPolicy NONE = new ScalingPolicy(List.of(), List.of(), List.of(), Optional.empty(),
            Cooldown.DEFAULTS, ScaleIn.DEFAULTS);

    public ScalingPolicy {
        targetTracking = List.copyOf(targetTracking);
        step = List.copyOf(step);
        scheduled = List.copyOf(scheduled);
        Objects.requireNonNull(emergency, "emergency");
        Objects.requireNonNull(cooldown, "cooldown");
        Objects.requireNonNull(scaleIn, "scaleIn");
    }

    /** Whether any rule can change the broker count (a backend is then required). */
    public boolean hasRules() {
        return !targetTracking.isEmpty() || !step.isEmpty() || !scheduled.isEmpty() || emergency.isPresent();
    }

    /**
     * {@code scaling.cooldown}: after a change, how long before the next one in a direction.
     *
     * @param scaleOut no rule-driven scale-out this long after a scale-out (default 60s; emergency ignores it)
     * @param scaleIn no scale-in this long after any scale-out or scale-in (default 300s)
     */
    public record Cooldown(Duration scaleOut, Duration scaleIn) {
        /** 60s out, 300s in. */
        public static final Cooldown DEFAULTS = new Cooldown(Duration.ofSeconds(60), Duration.ofSeconds(300));

        public Cooldown {
            Objects.requireNonNull(scaleOut, "scaleOut");
            Objects.requireNonNull(scaleIn, "scaleIn");
        }
    }

    /**
     * {@code scaling.scaleIn}: scale-in protection.
     *
     * @param enabled false forbids every scale-in, a lowered maximum included (default true)
     * @param stabilizationWindow the rules must have wanted fewer brokers at every evaluation over
     *     this long before one is removed (default 300s); damps flapping loads
     */
    public record ScaleIn(boolean enabled, Duration stabilizationWindow) {
        /** Enabled, 300s window. */
        public static final ScaleIn DEFAULTS = new ScaleIn(true, Duration.ofSeconds(300));

        public ScaleIn {
            Objects.requireNonNull(stabilizationWindow, "stabilizationWindow");
        }
    }
}
