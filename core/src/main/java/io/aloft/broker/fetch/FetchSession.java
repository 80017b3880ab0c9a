package io.aloft.broker.fetch;

import java.util.LinkedHashMap;
import org.apache.kafka.common.requests.FetchMetadata;

/**
 * One client's incremental fetch session (KIP-227): its id, the epoch the next request must carry,
 * and its partitions in the order incremental fetches read them.
 *
 * <p>Thread-safe. The epoch and the partition map are guarded by this object's monitor: a request
 * checks the epoch and builds its own copy of the map under it, and its response replaces both
 * under it only if the epoch is still the one checked (see {@link IncrementalFetchPlan}). The
 * fields the cache indexes the session by ({@link #lastUsedMs}, {@link #indexedSize},
 * {@link #evictable}) are guarded by the {@link FetchSessionCache}'s monitor instead. The two
 * monitors are never held together.
 */
final class FetchSession {
    final int id;
    /** Fetch v13 and later name topics by id; a session is either by ids or by names throughout. */
    final boolean usesTopicIds;
    final long creationMs;

    private int epoch;
    private LinkedHashMap<PartitionKey, CachedPartition> partitions;

    // Guarded by the cache's monitor.
    long lastUsedMs;
    int indexedSize;
    boolean evictable;

    FetchSession(int id, boolean usesTopicIds, long creationMs,
            LinkedHashMap<PartitionKey, CachedPartition> partitions) {
        this.id = id;
        this.usesTopicIds = usesTopicIds;
        this.creationMs = creationMs;
        this.partitions = partitions;
        this.epoch = FetchMetadata.nextEpoch(FetchMetadata.INITIAL_EPOCH);
        this.lastUsedMs = creationMs;
        this.indexedSize = partitions.size();
    }

    /** The epoch the next incremental request must carry. */
    synchronized int epoch() {
        return epoch;
    }

    synchronized int size() {
        return partitions.size();
    }

    /** Sets the epoch the next request must carry (tests: an epoch about to wrap around). */
    synchronized void restartEpochAt(int nextEpoch) {
        epoch = nextEpoch;
    }

    /** The partition map itself: callers hold this session's monitor and must not modify it. */
    LinkedHashMap<PartitionKey, CachedPartition> partitionsLocked() {
        assert Thread.holdsLock(this);
        return partitions;
    }

    /**
     * Makes {@code next} the session's partitions and moves to the next epoch (1 after
     * {@link Integer#MAX_VALUE}, as {@link FetchMetadata#nextEpoch} defines). Callers hold this
     * session's monitor and have checked the epoch.
     */
    void advanceLocked(LinkedHashMap<PartitionKey, CachedPartition> next) {
        assert Thread.holdsLock(this);
        partitions = next;
        epoch = FetchMetadata.nextEpoch(epoch);
    }

    @Override
    public String toString() {
        return "fetch session " + id;
    }
}
