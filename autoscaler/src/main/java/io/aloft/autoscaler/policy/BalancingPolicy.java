package io.aloft.autoscaler.policy;

import io.aloft.autoscaler.balance.BalancerConfig;
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
 *     (default 10, in (0, 100])
 * @param rackAware spread each topic's partitions over {@code broker.rack}s where set (default true)
 * @param slowBrokerWalP99 a broker whose WAL append p99 exceeds this receives no partitions
 *     (default 50ms)
 * @param maxMovesPerPlan most moves one plan proposes (default 100)
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
    public static final BalancingPolicy DEFAULTS = new BalancingPolicy(true, false,
            BalancerConfig.DEFAULT_NETWORK_BAND_PERCENT, BalancerConfig.DEFAULT_TRIVIAL_BROKER_BYTES_PER_SEC,
            BalancerConfig.DEFAULT_MIN_MOVE_BYTES_PER_SEC, BalancerConfig.DEFAULT_PARTITION_COUNT_BAND_PERCENT,
            BalancerConfig.DEFAULT_RACK_AWARE,
            Duration.ofNanos((long) (BalancerConfig.DEFAULT_SLOW_BROKER_WAL_P99_SECONDS * 1e9)),
            BalancerConfig.DEFAULT_MAX_MOVES_PER_PLAN);

    /** The balancer's configuration for these values. */
    public BalancerConfig toBalancerConfig() {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, minMoveBytesPerSec,
                partitionCountBandPercent, rackAware, slowBrokerWalP99.toNanos() / 1e9, maxMovesPerPlan);
    }
}
