package io.aloft.controller.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything a broker needs to know about the cluster (not streams and objects), as of one applied
 * log index: what a change-feed watcher gets when it starts or falls too far behind.
 *
 * @param appliedIndex the log index the image is as of
 * @param brokers registered brokers, by id
 * @param topics topics, by id
 * @param finalizedFeatureLevel the cluster's {@link FeatureLevel}
 * @param securityEntries the key-value entries under {@link SecurityKeys#PREFIX}, by key (empty below
 *     {@link FeatureLevel#SECURITY_METADATA})
 */
public record ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics,
        int finalizedFeatureLevel, SortedMap<String, byte[]> securityEntries) {
    public ClusterImage {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        securityEntries = Collections.unmodifiableSortedMap(new TreeMap<>(securityEntries));
    }

    /** An image without security entries. */
    public ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics,
            int finalizedFeatureLevel) {
        this(appliedIndex, brokers, topics, finalizedFeatureLevel, new TreeMap<>());
    }

    /** An image with security entries given as any map (the codec decodes a plain map). */
    public static ClusterImage of(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics,
            int finalizedFeatureLevel, Map<String, byte[]> securityEntries) {
        return new ClusterImage(appliedIndex, brokers, topics, finalizedFeatureLevel, new TreeMap<>(securityEntries));
    }

    /** An image at {@link FeatureLevel#INITIAL} (tests and tools that do not care about levels). */
    public ClusterImage(long appliedIndex, List<BrokerInfo> brokers, List<TopicInfo> topics) {
        this(appliedIndex, brokers, topics, FeatureLevel.INITIAL);
    }
}
