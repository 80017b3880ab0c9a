package io.aloft.broker.coordinator;

import io.aloft.broker.log.VerificationGuard;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where a coordinator's records are durable: the partitions of its internal topic
 * ({@code __consumer_offsets} for groups). {@link PartitionCoordinatorLog} is the broker's
 * implementation on partition logs; {@link MemoryCoordinatorLog} keeps encoded records in memory.
 *
 * <p>Contract the runtime relies on:
 * <ul>
 *   <li>{@link #append} does not block: it is called on a shard's thread.</li>
 *   <li>The records of one call are durable together or not at all, and appends to one partition
 *       become durable, and their futures complete, in call order.</li>
 *   <li>{@link #replay} passes every record still in the partition, in append order; a compacted
 *       log may drop records superseded by a later one with the same key.</li>
 * </ul>
 * Implementations are thread-safe.
 *
 * @param <R> the record type
 */
public interface CoordinatorLog<R> {

    /** Appends {@code records} to {@code partition} atomically; completes once they are durable. */
    CompletableFuture<Void> append(int partition, List<R> records);

    /**
     * {@link #append(int, List)}; a producer's transactional records are taken only with
     * {@code guard} if they would open the producer's transaction in the partition (KIP-890, see
     * {@link #startTransactionVerification}). This default checks nothing.
     *
     * @param guard from {@link #startTransactionVerification}, or null to check nothing
     */
    default CompletableFuture<Void> append(int partition, List<R> records, VerificationGuard guard) {
        return append(partition, records);
    }

    /**
     * Starts verifying a producer's transaction before its records are appended to
     * {@code partition} (Kafka's {@code maybeStartTransactionVerification}): completes with
     * {@link VerificationGuard#SENTINEL} if the transaction is open in the partition at that epoch
     * already (nothing to check), else the guard to append with once its coordinator agreed; with
     * null if this log does not track transactions (this default). Fails with the Kafka exception of
     * the partition's refusal (NOT_LEADER_OR_FOLLOWER: not led here).
     */
    default CompletableFuture<VerificationGuard> startTransactionVerification(int partition, long producerId,
            short producerEpoch) {
        return CompletableFuture.completedFuture(null);
    }

    /** Feeds the partition's records to {@code sink} in order, then returns. May block. */
    void replay(int partition, Consumer<R> sink);
}
