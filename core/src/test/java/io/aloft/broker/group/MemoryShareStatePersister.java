package io.aloft.broker.group;

import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateSummary;
import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A persister for the group coordinator's tests: remembers which keys were initialized and
 * deleted, in order, and answers at once (or fails initialize while {@link #failInitialize}).
 * Thread-safe (synchronized).
 */
public final class MemoryShareStatePersister implements ShareStatePersister {
    final List<SharePartitionKey> initialized = new ArrayList<>();
    final List<SharePartitionKey> deleted = new ArrayList<>();
    volatile boolean failInitialize;

    @Override
    public synchronized CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        if (failInitialize) {
            return CompletableFuture.failedFuture(new org.apache.kafka.common.errors.CoordinatorNotAvailableException(
                    "test"));
        }
        if (stateEpoch != 0 || startOffset != -1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(stateEpoch + "/" + startOffset));
        }
        initialized.add(key);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch) {
        return CompletableFuture.completedFuture(Optional.empty());
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                         int deliveryCompleteCount, List<StateBatch> batches) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key) {
        return CompletableFuture.completedFuture(Optional.empty());
    }

    @Override
    public synchronized CompletableFuture<Void> delete(SharePartitionKey key) {
        deleted.add(key);
        return CompletableFuture.completedFuture(null);
    }

    synchronized List<SharePartitionKey> initialized() {
        return List.copyOf(initialized);
    }

    synchronized List<SharePartitionKey> deleted() {
        return List.copyOf(deleted);
    }
}
