package io.aloft.broker.txn;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Writes transaction markers (control batches: COMMIT or ABORT) to the partitions of a
 * transaction, which is what makes its records visible to read_committed consumers or discards
 * them. The partition side (markers, last stable offset) implements it; the coordinator only asks.
 *
 * <p>{@link #write} must not block: it is called on a coordinator shard's thread. Its future
 * completes (on any thread) once a marker is durable in every partition, or fails; the coordinator
 * retries a failed write after a pause, as Kafka retries markers until they are written. Writing
 * the same marker again must be harmless (a retry, or a new coordinator resending after a move).
 * A partition that no longer exists counts as written. Implementations are thread-safe.
 */
public interface TransactionMarkers {

    /**
     * Writes a COMMIT ({@code commit}) or ABORT marker for {@code producerId} at {@code producerEpoch}
     * to each of {@code partitions} (topic to partitions).
     *
     * @param transactionalId for logs
     * @param coordinatorEpoch the coordinator's epoch: the leader epoch of the transactional id's
     *     {@code __transaction_state} partition when the coordinator loaded it (Kafka's coordinator
     *     epoch), which partitions compare with the last one they saw
     * @param transactionVersion the transaction's client version (1, or 2 for KIP-890 part 2), which
     *     decides what producer epoch a partition takes as stale (KIP-1228; WriteTxnMarkers v2)
     */
    CompletableFuture<Void> write(String transactionalId, long producerId, short producerEpoch, int coordinatorEpoch,
            boolean commit, Map<String, List<Integer>> partitions, short transactionVersion);
}
