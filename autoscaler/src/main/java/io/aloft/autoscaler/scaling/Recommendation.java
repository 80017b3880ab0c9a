package io.aloft.autoscaler.scaling;

/**
 * What one target-tracking or step rule wants at one evaluation. Immutable.
 *
 * @param rule the rule's name in the file ("targetTracking[0]", "step[1]")
 * @param wanted brokers it wants (the current count to hold)
 * @param reason why, with the figures
 */
record Recommendation(String rule, int wanted, String reason) {
}
