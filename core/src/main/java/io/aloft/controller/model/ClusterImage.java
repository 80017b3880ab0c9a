package io.aloft.controller.model;

import java.util.List;

/**
 * Everything a broker needs to know about the cluster (not streams and objects), as of one applied
 * log index: what a change-feed watcher gets when it starts or falls too far behind.
 */
public record ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics) {
    public ClusterImage {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
    }
}
