package io.aloft.broker.group.consumer;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * What a consumer group knows of a topic it subscribes to: its id, name and partition count. A
 * change of any of them (a topic deleted and created again, partitions added) changes the group's
 * subscription metadata and so its epoch. Immutable.
 */
public record TopicMetadata(Uuid id, String name, int numPartitions) {
    public TopicMetadata {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
    }
}
