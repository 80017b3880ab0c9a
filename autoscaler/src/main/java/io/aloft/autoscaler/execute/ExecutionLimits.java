package io.aloft.autoscaler.execute;

import java.time.Duration;
import java.util.Objects;

/**
 * How fast a plan may change the cluster. Moving an Aloft partition copies no data, but each move
 * closes the partition on one broker and opens it on another (about a second during which its
 * producers retry), so moves are run in small batches with a pause between them, and a run stops at
 * a budget; the rest waits for the next run, planned again from fresh metrics.
 *
 * <p>Immutable.
 *
 * @param maxConcurrentMovesPerBroker most moves of one batch that involve any one broker, as source
 *     or destination; at least 1
 * @param pauseBetweenBatches wait after a batch has finished before the next starts; not negative
 * @param maxMovesPerRun most moves one {@link ReassignmentExecutor#execute} call starts; the rest are
 *     reported as deferred; at least 1
 * @param moveTimeout how long a batch waits, once the Admin call has accepted its moves, for their
 *     partitions to be led by their targets; the late ones count as failed (they may still land);
 *     positive
 */
public record ExecutionLimits(int maxConcurrentMovesPerBroker, Duration pauseBetweenBatches, int maxMovesPerRun,
        Duration moveTimeout) {

    /** Two moves per broker at once, 5 s between batches, 20 moves a run, 60 s for a batch to land. */
    public static final ExecutionLimits DEFAULTS = new ExecutionLimits(2, Duration.ofSeconds(5), 20,
            Duration.ofSeconds(60));

    public ExecutionLimits {
        Objects.requireNonNull(pauseBetweenBatches, "pauseBetweenBatches");
        Objects.requireNonNull(moveTimeout, "moveTimeout");
        if (maxConcurrentMovesPerBroker < 1) {
            throw new IllegalArgumentException("maxConcurrentMovesPerBroker must be at least 1, not "
                    + maxConcurrentMovesPerBroker);
        }
        if (pauseBetweenBatches.isNegative()) {
            throw new IllegalArgumentException("pauseBetweenBatches must not be negative, not " + pauseBetweenBatches);
        }
        if (maxMovesPerRun < 1) {
            throw new IllegalArgumentException("maxMovesPerRun must be at least 1, not " + maxMovesPerRun);
        }
        if (moveTimeout.isNegative() || moveTimeout.isZero()) {
            throw new IllegalArgumentException("moveTimeout must be positive, not " + moveTimeout);
        }
    }
}
