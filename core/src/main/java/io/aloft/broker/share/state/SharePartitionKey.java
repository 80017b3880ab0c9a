package io.aloft.broker.share.state;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * One share partition: a share group's view of one topic partition. Its state lives in
 * {@code __share_group_state} partition {@code abs(coordinatorKey().hashCode()) % partitions}, as in
 * Kafka (FindCoordinator key type SHARE sends the same key). Immutable.
 */
public record SharePartitionKey(String groupId, Uuid topicId, int partition) {
    public SharePartitionKey {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(topicId, "topicId");
    }

    /** Kafka's coordinator key: {@code groupId:topicId:partition}. */
    public String coordinatorKey() {
        return groupId + ":" + topicId + ":" + partition;
    }
}
