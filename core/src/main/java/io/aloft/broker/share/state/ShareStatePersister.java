package io.aloft.broker.share.state;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps share partitions' state durably: what the share partition on the topic partition's leader
 * reads when it loads and writes on every change of acknowledgement state, and what the group
 * coordinator and the admin APIs initialize, summarize and delete. The broker's implementation
 * sends each call to the share coordinator of the key's {@code __share_group_state} partition: a
 * call on this broker, or Kafka's Initialize/Read/Write/Delete/ReadShareGroupStateSummary requests
 * to the broker leading it (so it may keep the state apart from the data).
 *
 * <p>A future completes once the change is durable in {@code __share_group_state}, and fails with
 * the Kafka {@link org.apache.kafka.common.errors.ApiException} the coordinator answered:
 * {@code FencedStateEpochException}, {@code FencedLeaderEpochException},
 * {@code CoordinatorNotAvailableException} after retries of NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS
 * ran out, {@code UnknownServerException} otherwise. Implementations retry coordinator moves
 * themselves within a bound. Thread-safe; never blocks.
 */
public interface ShareStatePersister {

    /**
     * Creates or resets the state: start offset {@code startOffset} (-1: the share partition
     * chooses with {@code share.auto.offset.reset}), no batches, state epoch {@code stateEpoch}.
     */
    CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset);

    /**
     * The state, after recording {@code leaderEpoch} as the epoch of its leader (refused with
     * FencedLeaderEpochException when an older one than stored); empty when never initialized.
     */
    CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch);

    /**
     * Merges a change into the state: the start offset moves to {@code startOffset} (-1: stays;
     * batches below it are dropped), and {@code batches} replace the states of the offsets they
     * cover. Refused with FencedStateEpochException when {@code stateEpoch} is not the current one,
     * FencedLeaderEpochException when {@code leaderEpoch} is older than stored.
     *
     * @param deliveryCompleteCount records at or above the new start offset acknowledged or archived
     *     (for the summary; -1 if not counted)
     */
    CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<StateBatch> batches);

    /** The summary; empty when never initialized. */
    CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key);

    /** Forgets the state (DeleteShareGroupOffsets, DeleteGroups); completes normally when there is none. */
    CompletableFuture<Void> delete(SharePartitionKey key);
}
