package io.aloft.broker.group.share;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One change of a share group (KIP-932), appended to its {@code __consumer_offsets} partition and
 * replayed when written and when the partition loads. Split by key as Kafka splits its share group
 * records, so compaction keeps the latest of each: the group epoch, the subscribed topics, each
 * member's metadata, the target assignment's epoch and each member's part of it, each member's
 * current assignment, and the share partitions whose state was initialized. A null value is a
 * tombstone. Immutable.
 */
public sealed interface ShareGroupRecord {

    String groupId();

    /** The group epoch; null: the group is deleted (after every other record of it was tombstoned). */
    record GroupEpoch(String groupId, Integer epoch) implements ShareGroupRecord {
    }

    /** The subscribed topics by name, as they were when the group epoch last changed; null: none. */
    record SubscribedTopics(String groupId, Map<String, TopicMetadata> topics) implements ShareGroupRecord {
        public SubscribedTopics {
            topics = topics == null ? null : Collections.unmodifiableMap(new TreeMap<>(topics));
        }
    }

    /** A member's metadata and subscription; null: the member is gone. */
    record MemberMetadata(String groupId, String memberId, Metadata value) implements ShareGroupRecord {
    }

    /** The epoch of the target assignment; null: tombstone. */
    record TargetEpoch(String groupId, Integer epoch) implements ShareGroupRecord {
    }

    /** A member's part of the target assignment; null: tombstone. */
    record TargetMember(String groupId, String memberId, Assignment value) implements ShareGroupRecord {
    }

    /** A member's epoch and the partitions it was told; null: tombstone. */
    record CurrentMember(String groupId, String memberId, Current value) implements ShareGroupRecord {
    }

    /**
     * The share partitions of the group whose state was initialized in {@code __share_group_state}
     * (all of them: the record replaces the previous one); null: none.
     */
    record InitializedPartitions(String groupId, Assignment partitions) implements ShareGroupRecord {
    }

    /** A member's metadata as it last heartbeated it. Immutable. */
    record Metadata(String rackId, String clientId, String clientHost, List<String> topicNames) {
        public Metadata {
            topicNames = List.copyOf(topicNames);
        }
    }

    /**
     * A member's epoch, the one before (a heartbeat with it is still accepted: the answer that moved
     * the member on may have been lost), and its assignment. Immutable.
     */
    record Current(int epoch, int previousEpoch, Assignment assigned) {
    }
}
