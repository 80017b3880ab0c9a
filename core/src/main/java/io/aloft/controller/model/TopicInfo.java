package io.aloft.controller.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A topic and its partitions.
 *
 * @param topicId stable id (Kafka's topic id)
 * @param name topic name
 * @param configs topic-level config overrides, sorted by key
 * @param partitions partitions in index order
 */
public record TopicInfo(UUID topicId, String name, Map<String, String> configs, List<PartitionInfo> partitions) {
    public TopicInfo {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(name, "name");
        // Sorted, so every replica encodes and dumps configs identically.
        configs = Collections.unmodifiableMap(new TreeMap<>(configs));
        partitions = List.copyOf(partitions);
    }
}
