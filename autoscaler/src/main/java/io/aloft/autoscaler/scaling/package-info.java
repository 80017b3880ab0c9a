/**
 * Scaling decisions: {@link io.aloft.autoscaler.scaling.ScalingDecider} turns a policy, the
 * sequence of cluster snapshots and the clock into {@link io.aloft.autoscaler.scaling.Decision}s
 * (emergency, scheduled bounds, target tracking and step rules, cooldowns, scale-in protection).
 * Pure and deterministic: no I/O, no wall clock of its own.
 */
package io.aloft.autoscaler.scaling;
