package io.aloft.broker.group.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One change of a consumer group (KIP-848), as appended to its {@code __consumer_offsets}
 * partition and replayed, at once when written and again when the partition loads. Split by key
 * the way Kafka splits them, so a member's heartbeat rewrites only what changed and compaction
 * keeps the latest of each: the group epoch, the subscription metadata, each member's metadata, the
 * target assignment's epoch and each member's part of it, and each member's current assignment.
 * A null value is a tombstone. Immutable.
 */
public sealed interface ConsumerGroupRecord {

    String groupId();

    /** The group epoch; null: the group is deleted (after every other record of it was tombstoned). */
    record GroupEpoch(String groupId, Integer epoch) implements ConsumerGroupRecord {
    }

    /** The subscribed topics by name, as they were when the group epoch last changed; null: none. */
    record SubscribedTopics(String groupId, Map<String, TopicMetadata> topics) implements ConsumerGroupRecord {
        public SubscribedTopics {
            topics = topics == null ? null : Collections.unmodifiableMap(new TreeMap<>(topics));
        }
    }

    /** A member's metadata and subscription; null: the member is gone. */
    record MemberMetadata(String groupId, String memberId, MemberSubscription value) implements ConsumerGroupRecord {
    }

    /** The epoch of the target assignment; null: tombstone. */
    record TargetEpoch(String groupId, Integer epoch) implements ConsumerGroupRecord {
    }

    /** A member's part of the target assignment; null: tombstone. */
    record TargetMember(String groupId, String memberId, Assignment value) implements ConsumerGroupRecord {
    }

    /** A member's current assignment and epoch; null: tombstone. */
    record CurrentMember(String groupId, String memberId, MemberAssignment value) implements ConsumerGroupRecord {
    }
}
