package io.aloft.controller.model;

/**
 * One change to cluster metadata, published on the change feed in log order. Each event carries
 * the new state of what changed, so a watcher applies it without further queries.
 *
 * @param index the log index of the command that made the change
 * @param broker the broker's new registration, when a broker changed
 * @param removedBrokerId a broker that was unregistered, else -1
 * @param topic the topic's new state (partitions included), when a topic was created or changed
 * @param deletedTopic a topic that was deleted (its last state), else null
 * @param finalizedFeatureLevel the cluster's new {@link FeatureLevel} when it was raised, else -1
 * @param kvKey a {@link SecurityKeys security entry} of the key-value space that was put or deleted,
 *     else null
 * @param kvValue the entry's new value, or null when it was deleted (or no entry changed)
 */
public record MetadataEvent(long index, BrokerInfo broker, int removedBrokerId, TopicInfo topic,
        TopicInfo deletedTopic, int finalizedFeatureLevel, String kvKey, byte[] kvValue) {

    /** An event that changes no key-value entry. */
    public MetadataEvent(long index, BrokerInfo broker, int removedBrokerId, TopicInfo topic, TopicInfo deletedTopic,
            int finalizedFeatureLevel) {
        this(index, broker, removedBrokerId, topic, deletedTopic, finalizedFeatureLevel, null, null);
    }

    public static MetadataEvent brokerChanged(long index, BrokerInfo broker) {
        return new MetadataEvent(index, broker, -1, null, null, -1);
    }

    public static MetadataEvent brokerRemoved(long index, int brokerId) {
        return new MetadataEvent(index, null, brokerId, null, null, -1);
    }

    public static MetadataEvent topicChanged(long index, TopicInfo topic) {
        return new MetadataEvent(index, null, -1, topic, null, -1);
    }

    public static MetadataEvent topicDeleted(long index, TopicInfo topic) {
        return new MetadataEvent(index, null, -1, null, topic, -1);
    }

    public static MetadataEvent featureLevelChanged(long index, int level) {
        return new MetadataEvent(index, null, -1, null, null, level);
    }

    /** A security entry put ({@code value} non-null) or deleted ({@code value} null). */
    public static MetadataEvent kvChanged(long index, String key, byte[] value) {
        return new MetadataEvent(index, null, -1, null, null, -1, key, value == null ? null : value.clone());
    }
}
