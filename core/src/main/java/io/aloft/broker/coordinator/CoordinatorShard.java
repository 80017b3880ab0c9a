package io.aloft.broker.coordinator;

/**
 * The state of one coordinator partition (one partition of the coordinator's internal topic) and
 * the operations on it. The {@link CoordinatorRuntime} calls every method on the shard's own
 * thread, one at a time, so a shard keeps plain fields and collections: no locks, no volatile.
 * The one exception is {@link #replay} while loading, which runs on the loading thread before the
 * shard is handed to its thread (it is not reachable by anything else then).
 *
 * <p>An operation reads and changes the state, and returns its response plus the records that
 * make the change durable (see {@link CoordinatorResult}). {@link #replay} turns a record back into
 * state: for every record of the partition while it loads, and for records written by operations
 * that ask for it once they are durable. So the state after a reload equals the state before it.
 *
 * @param <R> the record type of the coordinator's internal topic
 */
public interface CoordinatorShard<R> {

    /** Applies one record of this shard's partition, in log order. */
    void replay(R record);

    /**
     * The partition's records have all been replayed; the shard is about to serve. Runs on the
     * shard's thread before any operation: the place to start timers (session timeouts and the like).
     */
    default void onLoaded() {
    }

    /**
     * The shard stops serving (its partition moved to another broker, or the broker stops). Runs on
     * the shard's thread after the last operation; timers scheduled through the shard's context are
     * already cancelled. The place to answer requests still waiting with a retriable error.
     */
    default void onUnloaded() {
    }
}
