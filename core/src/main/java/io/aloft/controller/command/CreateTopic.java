package io.aloft.controller.command;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Creates a topic, placing each partition on the least-loaded active broker and creating
 * {@code streamsPerPartition} streams for each. Replies with the new
 * {@link io.aloft.controller.model.TopicInfo}.
 *
 * @param topicId chosen by the caller (random), so the command stays deterministic
 */
public record CreateTopic(UUID topicId, String name, int partitions, int streamsPerPartition,
        Map<String, String> configs) {
    public CreateTopic {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(name, "name");
        configs = Map.copyOf(configs);
    }
}
