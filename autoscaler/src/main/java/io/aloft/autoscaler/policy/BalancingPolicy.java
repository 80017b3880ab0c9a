package io.aloft.autoscaler.policy;

import java.time.Duration;

/**
 * The {@code balancing} section: the balancer's goals as an operator writes them. The service maps
 * this to the balancer's own configuration; this record only carries validated values.
 *
 * <p>Immutable.
 *
 * @param enabled whether the autoscaler balances at all (default true)
 * @param dryRun plan and log moves but execute none (default false)
 * @param networkBandPercent per-broker ingress and egress must stay within this percentage of the
 *     cluster mean (default 10, in (0, 100])
 * @param trivialBrokerBytesPerSec below this ingress plus egress a broker's imbalance is ignored
 *     (default 1MiB/s)
 * @param minMoveBytesPerSec a partition carrying less than this is not worth moving for network
 *     goals (default 64KiB/s)
 * @param partitionCountBandPercent per-broker partition count within this percentage of the mean
 *     (default 20, in (0, 100])
 * @param rackAware spread each topic's partitions over {@code broker.rack}s where set (default true)
 * @param slowBrokerWalP99 a broker whose WAL append p99 exceeds this receives no partitions
 *     (default 100ms)
 * @param maxMovesPerPlan most moves one plan proposes (default 50)
 */
public record BalancingPolicy(
        boolean enabled,
        boolean dryRun,
        double networkBandPercent,
        double trivialBrokerBytesPerSec,
        double minMoveBytesPerSec,
        double partitionCountBandPercent,
        boolean rackAware,
        Duration slowBrokerWalP99,
        int maxMovesPerPlan) {

    /** The defaults, used when the section or a key is absent. */
    public static final BalancingPolicy DEFAULTS = new BalancingPolicy(true, false, 10, 1 << 20, 64 << 10, 20, true,
            Duration.ofMillis(100), 50);
}
