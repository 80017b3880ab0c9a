package io.aloft.autoscaler.scaling;

import java.util.Objects;

/**
 * What the scaling policies decided at one evaluation. Immutable.
 *
 * @param action whether to change the broker count
 * @param currentBrokers brokers when decided
 * @param desiredBrokers brokers wanted (equal to current for {@link Action#NONE}), inside the policy's min and max
 * @param rule the policy rule that decided (e.g. "targetTracking[0]", "emergency", "scheduled[1]", "cooldown")
 * @param reason why, with the figures (e.g. "ingress 61.2 MB/s per broker over target 40 MB/s")
 */
public record Decision(Action action, int currentBrokers, int desiredBrokers, String rule, String reason) {

    /** The kind of change. */
    public enum Action {
        NONE, SCALE_OUT, SCALE_IN
    }

    public Decision {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(reason, "reason");
        if ((action == Action.NONE) != (desiredBrokers == currentBrokers)) {
            throw new IllegalArgumentException(action + " from " + currentBrokers + " to " + desiredBrokers);
        }
        if ((action == Action.SCALE_OUT) != (desiredBrokers > currentBrokers) && action != Action.NONE) {
            throw new IllegalArgumentException(action + " from " + currentBrokers + " to " + desiredBrokers);
        }
    }

    /** No change, with the reason (e.g. inside the band, or in a cooldown). */
    public static Decision none(int currentBrokers, String rule, String reason) {
        return new Decision(Action.NONE, currentBrokers, currentBrokers, rule, reason);
    }
}
