package io.aloft.broker.group;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The committed offsets of one group id, whatever kind of group (classic, simple or consumer) holds
 * the id: offsets belong to the id, so they outlive a classic group converted to a consumer group
 * and back. Kept by the shard beside its groups.
 *
 * <p>Confined to the shard's thread.
 */
final class GroupOffsets {

    /** Committed offsets, as last durably written. */
    final Map<TopicPartition, GroupRecord.OffsetCommit> committed = new HashMap<>();
    /** For each partition, the sequence of the latest offset write issued (commit or tombstone). */
    final Map<TopicPartition, Long> pending = new HashMap<>();
    /**
     * Offsets pending in open transactions (TxnOffsetCommit): by partition, by producer id. They
     * become committed, or go, when the producer's marker reaches the partition ({@link TxnOffsetManager}).
     */
    final Map<TopicPartition, Map<Long, TxnOffsetManager.Pending>> transactional = new HashMap<>();
    /** Set when the group's offsets were deleted: writes still in flight must not bring them back. */
    boolean removed;
    private long nextSequence;

    long nextSequence() {
        return ++nextSequence;
    }

    /** No offsets, none pending in a transaction, and no writes in flight. */
    boolean isEmpty() {
        return committed.isEmpty() && pending.isEmpty() && transactional.isEmpty();
    }
}
