package io.aloft.broker.coordinator;

import java.util.function.Supplier;

/**
 * What the runtime gives a shard: its partition, the time, and timers that run on the shard's
 * own thread. Confined to the shard's thread (and to the loading thread while the shard loads).
 *
 * @param <R> the shard's record type
 */
public interface ShardContext<R> {

    /** The partition of the internal topic this shard serves. */
    int partition();

    /** The coordinator clock ({@link CoordinatorTimer#nowMs}). */
    long nowMs();

    /**
     * Runs {@code operation} on the shard's thread about {@code delayMs} from now, as a write: the
     * records it returns are appended like an operation's. Nothing runs if the shard was unloaded
     * meanwhile; unloading cancels every pending timer of the shard.
     *
     * @param name for logs, when the operation fails
     */
    CoordinatorTimer.Scheduled schedule(long delayMs, String name, Supplier<CoordinatorResult<Void, R>> operation);
}
