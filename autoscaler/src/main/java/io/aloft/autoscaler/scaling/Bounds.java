package io.aloft.autoscaler.scaling;

import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.ScheduledRule;
import java.time.Instant;
import java.util.List;

/**
 * The broker count allowed at one instant: {@code [low, high]} where low is the largest of
 * {@code minBrokers}, the voters' floor and the open scheduled windows' minimums, and high the
 * smallest of {@code maxBrokers} and the open windows' maximums. When they cross, low wins: the
 * floor protects the quorum and the operator's minimum. Immutable.
 *
 * @param low fewest brokers allowed
 * @param lowRule what set it: "minBrokers", "voterFloor" or "scheduled[i]"
 * @param high most brokers allowed (at least {@code low})
 * @param highRule what set it: "maxBrokers" or "scheduled[i]"
 */
record Bounds(int low, String lowRule, int high, String highRule) {

    static Bounds at(Policy policy, int voterFloor, Instant now) {
        int low = policy.minBrokers();
        String lowRule = "minBrokers";
        if (voterFloor > low) {
            low = voterFloor;
            lowRule = "voterFloor";
        }
        int high = policy.maxBrokers();
        String highRule = "maxBrokers";
        List<ScheduledRule> scheduled = policy.scaling().scheduled();
        for (int i = 0; i < scheduled.size(); i++) {
            ScheduledRule window = scheduled.get(i);
            if (!window.isOpen(now)) {
                continue;
            }
            if (window.minBrokers().isPresent() && window.minBrokers().getAsInt() > low) {
                low = window.minBrokers().getAsInt();
                lowRule = "scheduled[" + i + "]";
            }
            if (window.maxBrokers().isPresent() && window.maxBrokers().getAsInt() < high) {
                high = window.maxBrokers().getAsInt();
                highRule = "scheduled[" + i + "]";
            }
        }
        if (high < low) {
            high = low;
            highRule = lowRule;
        }
        return new Bounds(low, lowRule, high, highRule);
    }

    int clamp(int count) {
        return Math.max(low, Math.min(high, count));
    }
}
