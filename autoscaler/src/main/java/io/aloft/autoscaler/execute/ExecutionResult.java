package io.aloft.autoscaler.execute;

import io.aloft.autoscaler.balance.Move;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@link ReassignmentExecutor#execute} did: the batches it ran (or, in a dry run, would
 * run), the moves that landed, those that failed and why, and those left for a later run.
 *
 * <p>Immutable.
 *
 * @param dryRun whether nothing was changed (the batches are the plan, with zero durations)
 * @param batches the batches in the order run
 * @param done moves whose partition ended led by its target
 * @param failed moves refused by the Admin call, stale, or not landed within the move timeout
 * @param deferred moves beyond {@link ExecutionLimits#maxMovesPerRun}, not attempted
 * @param duration the whole call, pauses included
 */
public record ExecutionResult(boolean dryRun, List<Batch> batches, List<Move> done, List<Failure> failed,
        List<Move> deferred, Duration duration) {

    public ExecutionResult {
        batches = List.copyOf(batches);
        done = List.copyOf(done);
        failed = List.copyOf(failed);
        deferred = List.copyOf(deferred);
        Objects.requireNonNull(duration, "duration");
    }

    /**
     * One batch: moves started together by one {@code alterPartitionReassignments} call.
     *
     * @param index 1-based position in the run
     * @param moves its moves; no broker appears (as source or destination) in more than
     *     {@link ExecutionLimits#maxConcurrentMovesPerBroker} of them
     * @param duration from the Admin call to the last partition landing (or the timeout)
     */
    public record Batch(int index, List<Move> moves, Duration duration) {
        public Batch {
            moves = List.copyOf(moves);
        }
    }

    /**
     * A move that did not happen, and why.
     *
     * @param move the move
     * @param error Kafka's error as the Admin client reported it ({@code ExceptionName: message}), or
     *     why the executor gave up on it (stale plan, timeout)
     */
    public record Failure(Move move, String error) {
    }

    /** One line: counts and the duration, for the log and the CLI. */
    public String summary() {
        return (dryRun ? "Dry run: " + batches.stream().mapToInt(b -> b.moves().size()).sum() + " moves in "
                + batches.size() + " batches would run" : "Reassignment: " + done.size() + " done, " + failed.size()
                + " failed in " + batches.size() + " batches") + ", " + deferred.size() + " deferred, "
                + String.format("%.1f s", duration.toMillis() / 1000.0);
    }
}
