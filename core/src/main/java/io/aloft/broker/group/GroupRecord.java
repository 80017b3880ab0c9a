package io.aloft.broker.group;

import io.aloft.broker.coordinator.TransactionMarker;
import io.aloft.broker.group.consumer.ConsumerGroupRecord;
import java.util.List;

/**
 * One change of coordinator state, as appended to a partition of {@code __consumer_offsets} and
 * replayed on load. Replaying a partition's records in order rebuilds its groups and offsets:
 * a later record for the same {@link GroupRecordCodec#key key} replaces an earlier one, and a
 * tombstone removes it, so the log may be compacted by key as Kafka compacts this topic.
 * Immutable; byte arrays are never modified after construction.
 */
public sealed interface GroupRecord {

    String groupId();

    /** The committed offset of one partition for one group. */
    record OffsetCommit(String groupId, String topic, int partition, long offset, int leaderEpoch,
                        String metadata, long commitTimestampMs, long expireTimestampMs) implements GroupRecord {
    }

    /** The committed offset of one partition for one group was deleted. */
    record OffsetTombstone(String groupId, String topic, int partition) implements GroupRecord {
    }

    /**
     * The group's membership after a rebalance (or its emptiness): enough to restore a Stable or
     * Empty group on load. {@code protocolName} and {@code leaderId} are null for an empty group.
     */
    record GroupMetadata(String groupId, String protocolType, int generationId, String protocolName,
                         String leaderId, long stateTimestampMs, List<Member> members) implements GroupRecord {
        public GroupMetadata {
            members = List.copyOf(members);
        }
    }

    /** One member inside {@link GroupMetadata}: its subscription for the chosen protocol, and assignment. */
    record Member(String memberId, String groupInstanceId, String clientId, String clientHost,
                  int rebalanceTimeoutMs, int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
    }

    /** The group was deleted; its offsets were tombstoned before this record. */
    record GroupTombstone(String groupId) implements GroupRecord {
    }

    /**
     * A change of a consumer group (KIP-848). Unlike the classic records above, these are replayed
     * into the shard when written, as well as on load.
     */
    record ConsumerGroupChange(ConsumerGroupRecord change) implements GroupRecord {
        @Override
        public String groupId() {
            return change.groupId();
        }
    }

    /** A change of a share group (KIP-932); replayed when written, as well as on load, like consumer groups'. */
    record ShareGroupChange(io.aloft.broker.group.share.ShareGroupRecord change) implements GroupRecord {
        @Override
        public String groupId() {
            return change.groupId();
        }
    }

    /**
     * An offset committed within a producer's transaction (TxnOffsetCommit): stored like
     * {@link OffsetCommit} (same key and value) but in a transactional batch of the producer, and
     * pending until a {@link TxnMarker} of that producer commits (applies) or aborts (drops) it.
     */
    record TxnOffsetCommit(long producerId, short producerEpoch, OffsetCommit offset) implements GroupRecord {
        @Override
        public String groupId() {
            return offset.groupId();
        }
    }

    /**
     * A transaction marker in the partition: ends the transaction of its producer for every group of
     * the partition. Stored as the log's control batch, not by key and value; it names no group
     * ({@link #groupId} is empty).
     */
    record TxnMarker(TransactionMarker marker) implements GroupRecord {
        @Override
        public String groupId() {
            return "";
        }
    }
}
