package io.aloft.broker.coordinator;

import io.aloft.broker.log.VerificationGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a write operation produces: its response, and the records that make its change durable.
 * The runtime appends the records (all of one result in one atomic append) and completes the
 * operation's future with the response once they are durable, or exceptionally with the append's
 * failure; a result without records completes at once.
 *
 * <p>Two ways to own state:
 * <ul>
 *   <li>{@link #of(List, Object)}: the operation only validates and produces records; the runtime
 *       applies them at once with {@link CoordinatorShard#replay}, the same function that rebuilds
 *       the state when the partition loads, so the next operation sees them; the response waits
 *       until they are durable. If the append fails, the shard's state is ahead of its log: the
 *       runtime unloads the shard, and its {@link CoordinatorTopic} loads it again from the log (as
 *       Kafka reverts to its last committed state). Prefer this for new coordinators.</li>
 *   <li>{@link #builder()}: the operation changes the state itself and the records persist that
 *       change (Kafka's classic groups work this way: their in-memory state holds waiting requests and
 *       timers that records do not). Such records are not replayed when written; each append can
 *       carry an {@link AfterAppend} step that runs on the shard's thread once the append is durable
 *       or failed, and may produce further records.</li>
 * </ul>
 * Immutable once built.
 *
 * @param <T> the response type
 * @param <R> the record type
 */
public final class CoordinatorResult<T, R> {

    /**
     * A step run on the shard's thread once the records of its result are durable ({@code failure}
     * null) or could not be written; records it adds to {@code next} are appended in turn.
     */
    @FunctionalInterface
    public interface AfterAppend<R> {
        void run(Throwable failure, Builder<R> next);
    }

    private final List<R> records;
    private final boolean replay;
    private final T response;
    private final List<AfterAppend<R>> afterAppend;
    private final VerificationGuard guard;

    private CoordinatorResult(List<R> records, boolean replay, T response, List<AfterAppend<R>> afterAppend) {
        this(records, replay, response, afterAppend, null);
    }

    private CoordinatorResult(List<R> records, boolean replay, T response, List<AfterAppend<R>> afterAppend,
            VerificationGuard guard) {
        this.records = List.copyOf(records);
        this.replay = replay;
        this.response = response;
        this.afterAppend = List.copyOf(afterAppend);
        this.guard = guard;
    }

    /** A response and nothing to write. */
    public static <T, R> CoordinatorResult<T, R> of(T response) {
        return new CoordinatorResult<>(List.of(), false, response, List.of());
    }

    /** Records applied with {@link CoordinatorShard#replay} at once; {@code response} once they are durable. */
    public static <T, R> CoordinatorResult<T, R> of(List<R> records, T response) {
        return new CoordinatorResult<>(records, true, response, List.of());
    }

    /**
     * As {@link #of(List, Object)}, and {@code then} runs on the shard's thread once the records are
     * durable or could not be written (after a failed append the shard is being unloaded). For work
     * that may start only once a change is durable, such as the transaction markers that follow a
     * durable PrepareCommit.
     */
    public static <T, R> CoordinatorResult<T, R> of(List<R> records, T response, AfterAppend<R> then) {
        return new CoordinatorResult<>(records, true, response, List.of(then));
    }

    /** Collects records whose effect the operation applies itself (see the class comment). */
    public static <R> Builder<R> builder() {
        return new Builder<>();
    }

    public List<R> records() {
        return records;
    }

    /**
     * The verification guard the records, a producer's transactional ones, are appended with
     * ({@link CoordinatorLog#append(int, List, VerificationGuard)}); null for none.
     */
    public VerificationGuard guard() {
        return guard;
    }

    /** Whether the runtime replays {@link #records} into the shard (when the operation returns). */
    public boolean replayRecords() {
        return replay;
    }

    public T response() {
        return response;
    }

    List<AfterAppend<R>> afterAppend() {
        return afterAppend;
    }

    /**
     * Records gathered while an operation runs, possibly by several helpers, each with what to do
     * once they are durable. Confined to the shard's thread.
     */
    public static final class Builder<R> {
        private final List<R> records = new ArrayList<>();
        private final List<AfterAppend<R>> afterAppend = new ArrayList<>();
        private VerificationGuard guard;

        private Builder() {
        }

        /**
         * The records (a producer's transactional ones, KIP-890) are appended with {@code guard}
         * from {@link CoordinatorLog#startTransactionVerification}: refused if they would open a
         * transaction that ended since it was verified.
         */
        public Builder<R> verifiedBy(VerificationGuard guard) {
            this.guard = guard;
            return this;
        }

        /** Adds records; {@code then} (may be null) runs once they are durable or failed. */
        public Builder<R> append(List<? extends R> more, AfterAppend<R> then) {
            records.addAll(more);
            if (then != null) {
                afterAppend.add(then);
            }
            return this;
        }

        /** Whether nothing was added. */
        public boolean isEmpty() {
            return records.isEmpty() && afterAppend.isEmpty();
        }

        /** The result: these records (not replayed) and {@code response}. */
        public <T> CoordinatorResult<T, R> build(T response) {
            return new CoordinatorResult<>(records, false, response, afterAppend, guard);
        }
    }

    @Override
    public String toString() {
        return "CoordinatorResult(" + records.size() + " records, replay=" + replay + ", response="
                + Objects.toString(response) + ")";
    }
}
