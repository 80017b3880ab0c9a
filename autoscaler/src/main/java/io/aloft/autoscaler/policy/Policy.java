package io.aloft.autoscaler.policy;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An autoscaling policy file, parsed and validated by {@link PolicyLoader}: how often to evaluate,
 * the cluster's size bounds, how to balance, when to scale, which backend adds and removes brokers
 * and where each broker's metrics are. Keys, types and defaults: {@code autoscaler/POLICY.md}.
 *
 * <p>Immutable, like every record it holds.
 *
 * @param interval evaluation period ({@code interval}, default 30s)
 * @param minBrokers fewest brokers ({@code minBrokers}, default 1, at least 1)
 * @param maxBrokers most brokers ({@code maxBrokers}, required, at least {@code minBrokers})
 * @param balancing balancing goals ({@code balancing})
 * @param execution how plans are executed ({@code execution})
 * @param scaling scaling rules ({@code scaling})
 * @param backend how brokers are added and removed ({@code backend}); required when scaling rules exist
 * @param metrics where each broker's metrics endpoint is ({@code metrics})
 */
public record Policy(
        Duration interval,
        int minBrokers,
        int maxBrokers,
        BalancingPolicy balancing,
        ExecutionPolicy execution,
        ScalingPolicy scaling,
        Optional<BackendPolicy> backend,
        MetricsPolicy metrics) {

    /** Default of {@code interval}. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);
    /** Default of {@code minBrokers}. */
    public static final int DEFAULT_MIN_BROKERS = 1;

    public Policy {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(balancing, "balancing");
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(scaling, "scaling");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(metrics, "metrics");
    }
}
