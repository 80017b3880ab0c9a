package io.aloft.broker.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where the coordinator keeps its state durably: the partitions of the internal
 * {@code __consumer_offsets} topic. Records are turned into key/value bytes by
 * {@link GroupRecordCodec}; an implementation on a real partition log writes each record as a
 * Kafka record with that key and value (a null value is a tombstone).
 *
 * <p>Contract the coordinator relies on:
 * <ul>
 *   <li>{@link #append} must not block: it is called while one group's lock is held.</li>
 *   <li>Appends to one partition become durable, and their futures complete, in call order;
 *       the coordinator applies committed offsets when the future completes.</li>
 *   <li>{@link #replay} passes every record still in the partition, in append order; a
 *       compacted log may drop records superseded by a later one with the same key.</li>
 * </ul>
 * Implementations are thread-safe.
 */
public interface GroupLog {

    /** Appends {@code records} to {@code partition} atomically; completes once they are durable. */
    CompletableFuture<Void> append(int partition, List<GroupRecord> records);

    /** Feeds the partition's records to {@code sink} in order, then returns. */
    void replay(int partition, Consumer<GroupRecord> sink);
}
