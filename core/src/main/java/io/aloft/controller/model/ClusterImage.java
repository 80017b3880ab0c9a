package io.aloft.controller.model;

import java.util.List;

/**
 * Everything a broker needs to know about the cluster (not streams and objects), as of one applied
 * log index: what a change-feed watcher gets when it starts or falls too far behind.
 *
 * @param appliedIndex the log index the image is as of
 * @param brokers registered brokers, by id
 * @param topics topics, by id
 * @param finalizedFeatureLevel the cluster's {@link FeatureLevel}
 */
public record ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics,
        int finalizedFeatureLevel) {
    public ClusterImage {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
    }

    /** An image at {@link FeatureLevel#INITIAL} (tests and tools that do not care about levels). */
    public ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics) {
        this(appliedIndex, brokers, topics, FeatureLevel.INITIAL);
    }
}
