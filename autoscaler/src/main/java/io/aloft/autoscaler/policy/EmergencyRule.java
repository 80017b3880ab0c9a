package io.aloft.autoscaler.policy;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * {@code scaling.emergency}: scale out at once on back-pressure, ignoring the scale-out cooldown
 * (never {@code maxBrokers}). A breach is any broker exceeding any configured threshold; it must
 * be seen at {@code forEvaluations} consecutive evaluations, so a single spike does not add a
 * broker. At least one threshold is required.
 *
 * <p>Immutable.
 *
 * @param walFullWaitsPerSec appends per second waiting for WAL room above which a broker is in trouble
 * @param walFillRatio WAL fill (0, 1] above which a broker is in trouble
 * @param produceP99 Produce p99 latency above which a broker is in trouble
 * @param forEvaluations consecutive breached evaluations needed ({@code for}, default 2)
 * @param add brokers to add (default 1)
 */
public record EmergencyRule(
        OptionalDouble walFullWaitsPerSec,
        OptionalDouble walFillRatio,
        Optional<Duration> produceP99,
        int forEvaluations,
        int add) {

    /** Default of {@code for}. */
    public static final int DEFAULT_FOR_EVALUATIONS = 2;
    /** Default of {@code add}. */
    public static final int DEFAULT_ADD = 1;

    public EmergencyRule {
        Objects.requireNonNull(walFullWaitsPerSec, "walFullWaitsPerSec");
        Objects.requireNonNull(walFillRatio, "walFillRatio");
        Objects.requireNonNull(produceP99, "produceP99");
    }
}
