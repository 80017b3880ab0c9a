package io.aloft.autoscaler.balance;

/**
 * The self-balancer's goals and limits. Each value is checked when the record is built, and a bad
 * one is rejected with a message naming the field, so a policy file fails at load rather than at
 * the first plan. Immutable.
 *
 * @param networkBandPercent per-broker ingress and egress are kept within plus or minus this
 *     percentage of their mean over the ready brokers (default {@value #DEFAULT_NETWORK_BAND_PERCENT})
 * @param trivialBrokerBytesPerSec when the mean per-broker rate is below this, the network goal is
 *     met whatever the spread: moving partitions to even out trivial loads costs more than it gains
 *     (default 1 MiB/s)
 * @param minMoveBytesPerSec a partition carrying less than this (in the rate the goal balances) is
 *     a trivial move and is never proposed for a network goal (default 64 KiB/s)
 * @param partitionCountBandPercent partitions per broker are kept within plus or minus this
 *     percentage of the mean, and at least one partition either way (default
 *     {@value #DEFAULT_PARTITION_COUNT_BAND_PERCENT})
 * @param rackAware whether each topic's partitions are kept spread evenly over {@code broker.rack}s,
 *     as the controller places them (brokers without a rack together count as one rack, as in the
 *     controller's placement; default true)
 * @param slowBrokerWalP99Seconds a broker whose WAL append p99 is above this and above three times
 *     the cluster median is slow: it receives no partitions and sheds ingress down to the lower edge
 *     of the band (default {@value #DEFAULT_SLOW_BROKER_WAL_P99_SECONDS} s)
 * @param maxMovesPerPlan at most this many moves in one plan; the next plan continues (default
 *     {@value #DEFAULT_MAX_MOVES_PER_PLAN})
 */
public record BalancerConfig(
        double networkBandPercent,
        double trivialBrokerBytesPerSec,
        double minMoveBytesPerSec,
        double partitionCountBandPercent,
        boolean rackAware,
        double slowBrokerWalP99Seconds,
        int maxMovesPerPlan) {

    public static final double DEFAULT_NETWORK_BAND_PERCENT = 10;
    public static final double DEFAULT_TRIVIAL_BROKER_BYTES_PER_SEC = 1024 * 1024;
    public static final double DEFAULT_MIN_MOVE_BYTES_PER_SEC = 64 * 1024;
    public static final double DEFAULT_PARTITION_COUNT_BAND_PERCENT = 10;
    public static final boolean DEFAULT_RACK_AWARE = true;
    public static final double DEFAULT_SLOW_BROKER_WAL_P99_SECONDS = 0.05;
    public static final int DEFAULT_MAX_MOVES_PER_PLAN = 100;

    public BalancerConfig {
        if (!(networkBandPercent > 0 && networkBandPercent <= 100)) {
            throw new IllegalArgumentException(
                    "networkBandPercent must be above 0 and at most 100, was " + networkBandPercent);
        }
        if (!(trivialBrokerBytesPerSec >= 0) || Double.isInfinite(trivialBrokerBytesPerSec)) {
            throw new IllegalArgumentException(
                    "trivialBrokerBytesPerSec must be a finite rate >= 0, was " + trivialBrokerBytesPerSec);
        }
        if (!(minMoveBytesPerSec >= 0) || Double.isInfinite(minMoveBytesPerSec)) {
            throw new IllegalArgumentException(
                    "minMoveBytesPerSec must be a finite rate >= 0, was " + minMoveBytesPerSec);
        }
        if (!(partitionCountBandPercent >= 0 && partitionCountBandPercent <= 100)) {
            throw new IllegalArgumentException(
                    "partitionCountBandPercent must be >= 0 and at most 100, was " + partitionCountBandPercent);
        }
        if (!(slowBrokerWalP99Seconds > 0) || Double.isInfinite(slowBrokerWalP99Seconds)) {
            throw new IllegalArgumentException(
                    "slowBrokerWalP99Seconds must be a finite time above 0, was " + slowBrokerWalP99Seconds);
        }
        if (maxMovesPerPlan < 1) {
            throw new IllegalArgumentException("maxMovesPerPlan must be at least 1, was " + maxMovesPerPlan);
        }
    }

    /** Every default. */
    public static BalancerConfig defaults() {
        return new BalancerConfig(DEFAULT_NETWORK_BAND_PERCENT, DEFAULT_TRIVIAL_BROKER_BYTES_PER_SEC,
                DEFAULT_MIN_MOVE_BYTES_PER_SEC, DEFAULT_PARTITION_COUNT_BAND_PERCENT, DEFAULT_RACK_AWARE,
                DEFAULT_SLOW_BROKER_WAL_P99_SECONDS, DEFAULT_MAX_MOVES_PER_PLAN);
    }

    public BalancerConfig withNetworkBandPercent(double value) {
        return new BalancerConfig(value, trivialBrokerBytesPerSec, minMoveBytesPerSec, partitionCountBandPercent,
                rackAware, slowBrokerWalP99Seconds, maxMovesPerPlan);
    }

    public BalancerConfig withTrivialBrokerBytesPerSec(double value) {
        return new BalancerConfig(networkBandPercent, value, minMoveBytesPerSec, partitionCountBandPercent,
                rackAware, slowBrokerWalP99Seconds, maxMovesPerPlan);
    }

    public BalancerConfig withMinMoveBytesPerSec(double value) {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, value, partitionCountBandPercent,
                rackAware, slowBrokerWalP99Seconds, maxMovesPerPlan);
    }

    public BalancerConfig withPartitionCountBandPercent(double value) {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, minMoveBytesPerSec, value,
                rackAware, slowBrokerWalP99Seconds, maxMovesPerPlan);
    }

    public BalancerConfig withRackAware(boolean value) {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, minMoveBytesPerSec,
                partitionCountBandPercent, value, slowBrokerWalP99Seconds, maxMovesPerPlan);
    }

    public BalancerConfig withSlowBrokerWalP99Seconds(double value) {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, minMoveBytesPerSec,
                partitionCountBandPercent, rackAware, value, maxMovesPerPlan);
    }

    public BalancerConfig withMaxMovesPerPlan(int value) {
        return new BalancerConfig(networkBandPercent, trivialBrokerBytesPerSec, minMoveBytesPerSec,
                partitionCountBandPercent, rackAware, slowBrokerWalP99Seconds, value);
    }
}
