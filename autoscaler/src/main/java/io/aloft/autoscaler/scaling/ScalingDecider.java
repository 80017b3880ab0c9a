package io.aloft.autoscaler.scaling;

import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.EmergencyRule;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.ScalingPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Decides, at each evaluation, whether the cluster should gain or lose brokers under a
 * {@link Policy}. Deterministic given the policy, the sequence of snapshots and the clock passed in.
 *
 * <p>Precedence, highest first:
 * <ol>
 *   <li><b>emergency</b>: back-pressure seen at {@code for} consecutive evaluations adds {@code add}
 *       brokers at once, ignoring the scale-out cooldown and scheduled maximums, never above
 *       {@code maxBrokers};
 *   <li><b>bounds</b>: below {@code max(minBrokers, voterFloor, open scheduled minimums)} scales
 *       out to it at once; above {@code min(maxBrokers, open scheduled maximums)} scales in;
 *   <li><b>rules</b>: the largest count any target-tracking or step rule wants (so between rules
 *       scale-out wins, and a rule holding vetoes a scale-in), clamped to the bounds. A rule-driven
 *       scale-out waits out {@code cooldown.scaleOut} after the last scale-out.
 * </ol>
 * Every scale-in removes one broker, needs {@code scaleIn.enabled}, waits out
 * {@code cooldown.scaleIn} after any change, and (when rule-driven) needs the rules to have wanted
 * fewer brokers at every evaluation over {@code scaleIn.stabilizationWindow}: a load flapping
 * around a threshold therefore adds a broker once and does not remove it again.
 *
 * <p>State: the cooldown timestamps, the count of consecutive emergency breaches and the recent
 * wanted counts. Confined to the autoscaler's control thread (not thread-safe).
 */
public final class ScalingDecider {

    /** One evaluation's largest wanted count (the current count when no rule had data). */
    private record Wanted(Instant at, int brokers) {
    }

    private final Policy policy;
    private final ScalingPolicy scaling;
    private final Deque<Wanted> history = new ArrayDeque<>();
    private Instant firstEvaluation;
    private Instant lastScaleOut;
    private Instant lastChange;
    private int breachStreak;

    public ScalingDecider(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.scaling = policy.scaling();
    }

    /**
     * Evaluates the policy once. Call once per evaluation interval: emergency streaks and the
     * stabilization window count these calls.
     *
     * @param snapshot the cluster's load now
     * @param currentBrokers brokers the backend runs now (started ones included)
     * @param voterFloor fewest brokers the controller quorum needs (brokers hosting voters)
     * @param now the clock
     * @return the decision; the caller acts on it and reports a completed change with {@link #scaled}
     */
    public Decision decide(ClusterSnapshot snapshot, int currentBrokers, int voterFloor, Instant now) {
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(now, "now");
        int current = currentBrokers;
        List<Recommendation> recommendations = evaluateRules(snapshot, current);
        Optional<Recommendation> top = recommendations.stream()
                .max(Comparator.comparingInt(Recommendation::wanted));
        remember(now, top.map(Recommendation::wanted).orElse(current));
        Bounds bounds = Bounds.at(policy, voterFloor, now);

        Optional<Decision> emergency = emergency(snapshot, current, bounds);
        if (emergency.isPresent()) {
            return emergency.get();
        }
        if (current < bounds.low()) {
            return new Decision(Decision.Action.SCALE_OUT, current, bounds.low(), bounds.lowRule(),
                    brokers(current) + ", below the " + bounds.lowRule() + " bound of " + bounds.low());
        }
        if (current > bounds.high()) {
            String why = brokers(current) + ", above the " + bounds.highRule() + " bound of " + bounds.high();
            return scaleIn(current, bounds.highRule(), why, now).orElseGet(
                    () -> new Decision(Decision.Action.SCALE_IN, current, current - 1, bounds.highRule(), why));
        }
        if (top.isEmpty()) {
            return Decision.none(current, "none",
                    scaling.targetTracking().isEmpty() && scaling.step().isEmpty()
                            ? "no target-tracking or step rule" : "no rule has data or a matching step");
        }
        Recommendation best = top.get();
        int desired = bounds.clamp(best.wanted());
        String clamp = desired == best.wanted() ? ""
                : "; clamped to " + desired + " by " + (desired > best.wanted() ? bounds.lowRule() : bounds.highRule());
        if (desired > current) {
            if (lastScaleOut != null && now.isBefore(lastScaleOut.plus(scaling.cooldown().scaleOut()))) {
                return Decision.none(current, "cooldown", "scale-out cooldown until "
                        + lastScaleOut.plus(scaling.cooldown().scaleOut()) + "; " + best.rule() + ": " + best.reason());
            }
            return new Decision(Decision.Action.SCALE_OUT, current, desired, best.rule(), best.reason() + clamp);
        }
        if (desired < current) {
            Optional<Decision> held = scaleIn(current, best.rule(), best.reason(), now);
            if (held.isPresent()) {
                return held.get();
            }
            Optional<Duration> unstable = unstableFor(current, now);
            if (unstable.isPresent()) {
                return Decision.none(current, best.rule(), best.reason() + "; held: fewer brokers wanted for "
                        + unstable.get().toSeconds() + "s of the " + scaling.scaleIn().stabilizationWindow().toSeconds()
                        + "s stabilization window");
            }
            return new Decision(Decision.Action.SCALE_IN, current, current - 1, best.rule(),
                    best.reason() + "; removing one broker");
        }
        return Decision.none(current, best.rule(), recommendations.stream()
                .map(r -> r.rule() + ": " + r.reason()).collect(Collectors.joining("; ")) + clamp);
    }

    /**
     * Records a change the caller completed, for the cooldowns: a scale-out starts the scale-out
     * cooldown and restarts the emergency streak; any change starts the scale-in cooldown.
     * {@link Decision.Action#NONE} is ignored.
     */
    public void scaled(Decision done, Instant at) {
        Objects.requireNonNull(at, "at");
        switch (done.action()) {
            case SCALE_OUT -> {
                lastScaleOut = at;
                lastChange = at;
                breachStreak = 0;
            }
            case SCALE_IN -> lastChange = at;
            case NONE -> {
            }
        }
    }

    private List<Recommendation> evaluateRules(ClusterSnapshot snapshot, int current) {
        List<Recommendation> out = new ArrayList<>();
        for (int i = 0; i < scaling.targetTracking().size(); i++) {
            RuleEvaluator.targetTracking(i, scaling.targetTracking().get(i), snapshot, current).ifPresent(out::add);
        }
        for (int i = 0; i < scaling.step().size(); i++) {
            RuleEvaluator.step(i, scaling.step().get(i), snapshot, current).ifPresent(out::add);
        }
        return out;
    }

    private Optional<Decision> emergency(ClusterSnapshot snapshot, int current, Bounds bounds) {
        if (scaling.emergency().isEmpty()) {
            return Optional.empty();
        }
        EmergencyRule rule = scaling.emergency().get();
        Optional<String> breach = EmergencyCheck.summary(EmergencyCheck.breaches(rule, snapshot));
        breachStreak = breach.isPresent() ? breachStreak + 1 : 0;
        if (breachStreak < rule.forEvaluations()) {
            return Optional.empty();
        }
        int ceiling = Math.max(policy.maxBrokers(), bounds.low());
        int desired = Math.max(bounds.low(), Math.min(ceiling, current + rule.add()));
        String why = breach.get() + " for " + breachStreak + (breachStreak == 1 ? " evaluation" : " evaluations");
        if (desired <= current) {
            return Optional.of(Decision.none(current, "emergency", why + "; already at maxBrokers " + ceiling));
        }
        return Optional.of(new Decision(Decision.Action.SCALE_OUT, current, desired, "emergency",
                why + "; adding " + (desired - current)));
    }

    /** A NONE decision when scale-in is switched off or cooling down, else empty. */
    private Optional<Decision> scaleIn(int current, String rule, String why, Instant now) {
        if (!scaling.scaleIn().enabled()) {
            return Optional.of(Decision.none(current, "scaleIn", why + "; scale-in disabled (scaleIn.enabled: false)"));
        }
        if (lastChange != null && now.isBefore(lastChange.plus(scaling.cooldown().scaleIn()))) {
            return Optional.of(Decision.none(current, "cooldown", "scale-in cooldown until "
                    + lastChange.plus(scaling.cooldown().scaleIn()) + "; " + rule + ": " + why));
        }
        return Optional.empty();
    }

    /**
     * Empty when every evaluation over the stabilization window wanted fewer than {@code current}
     * brokers (and the decider has run that long); else how long fewer have been wanted.
     */
    private Optional<Duration> unstableFor(int current, Instant now) {
        Duration window = scaling.scaleIn().stabilizationWindow();
        Instant lowSince = firstEvaluation;
        for (Wanted w : history) {
            if (w.brokers() >= current) {
                lowSince = null;
            } else if (lowSince == null) {
                lowSince = w.at();
            }
        }
        if (lowSince != null && !now.isBefore(lowSince.plus(window))) {
            return Optional.empty();
        }
        return Optional.of(lowSince == null ? Duration.ZERO : Duration.between(lowSince, now));
    }

    private static String brokers(int count) {
        return count + (count == 1 ? " broker" : " brokers");
    }

    private void remember(Instant now, int wanted) {
        if (firstEvaluation == null) {
            firstEvaluation = now;
        }
        history.addLast(new Wanted(now, wanted));
        Instant horizon = now.minus(scaling.scaleIn().stabilizationWindow());
        while (!history.isEmpty() && history.peekFirst().at().isBefore(horizon)) {
            history.removeFirst();
        }
    }
}
