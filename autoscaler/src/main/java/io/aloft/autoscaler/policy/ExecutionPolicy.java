package io.aloft.autoscaler.policy;

import java.time.Duration;

/**
 * The {@code execution} section: how a balancing plan becomes reassignments, in rate-limited
 * batches. Immutable.
 *
 * @param maxConcurrentMovesPerBroker moves in flight touching one broker, as source or target (default 2)
 * @param pauseBetweenBatches wait after a batch completes before the next (default 5s)
 * @param maxMovesPerRun budget of moves per evaluation (default 50)
 * @param moveTimeout a move not visible as done after this is reported failed (default 60s)
 */
public record ExecutionPolicy(
        int maxConcurrentMovesPerBroker,
        Duration pauseBetweenBatches,
        int maxMovesPerRun,
        Duration moveTimeout) {

    /** The defaults, used when the section or a key is absent. */
    public static final ExecutionPolicy DEFAULTS = new ExecutionPolicy(2, Duration.ofSeconds(5), 50,
            Duration.ofSeconds(60));
}
