package io.aloft.broker.fetch;

import org.apache.kafka.common.Uuid;

/**
 * How a fetch session names a partition: by topic id in sessions of Fetch v13 and later (so a
 * topic deleted and created again under the same name is a different partition), by topic name
 * before. Immutable.
 *
 * @param topicId the topic id, or null in a session by names
 * @param topicName the topic name, or null in a session by ids
 */
record PartitionKey(Uuid topicId, String topicName, int partition) {

    static PartitionKey byId(Uuid topicId, int partition) {
        return new PartitionKey(topicId, null, partition);
    }

    static PartitionKey byName(String topicName, int partition) {
        return new PartitionKey(null, topicName, partition);
    }

    @Override
    public String toString() {
        return (topicId != null ? topicId.toString() : topicName) + "-" + partition;
    }
}
