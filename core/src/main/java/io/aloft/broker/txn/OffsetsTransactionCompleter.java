package io.aloft.broker.txn;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Ends a transaction in a partition of {@code __consumer_offsets}: what a marker for such a
 * partition means. The group coordinator owns those partitions (its replay reads every record of
 * them), so their marker goes through it rather than straight into the log: it writes the marker
 * through its coordinator runtime and makes the transaction's pending offsets (TxnOffsetCommit)
 * committed, or drops them on abort. Kafka's {@code GroupCoordinator.completeTransaction}.
 *
 * <p>The future fails with Kafka's exceptions: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and
 * COORDINATOR_NOT_AVAILABLE are answered to the marker's sender as NOT_LEADER_OR_FOLLOWER (it
 * retries), as Kafka's WriteTxnMarkers does. Implementations are thread-safe and do not block.
 */
@FunctionalInterface
public interface OffsetsTransactionCompleter {

    /**
     * Until the group coordinator serves TxnOffsetCommit no transactional offsets are ever written,
     * so there is nothing to end: completes at once and writes nothing.
     */
    OffsetsTransactionCompleter NOTHING_TO_COMPLETE = (tp, producerId, producerEpoch, coordinatorEpoch, commit) ->
            CompletableFuture.completedFuture(null);

    /**
     * Writes the COMMIT ({@code commit}) or ABORT marker of {@code producerId} into
     * {@code offsetsPartition} and applies it to the pending transactional offsets there.
     */
    CompletableFuture<Void> completeTransaction(TopicPartition offsetsPartition, long producerId, short producerEpoch,
            int coordinatorEpoch, boolean commit);
}
