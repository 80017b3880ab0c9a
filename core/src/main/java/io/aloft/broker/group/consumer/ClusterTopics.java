package io.aloft.broker.group.consumer;

import java.util.Collection;
import org.apache.kafka.common.Uuid;

/**
 * The topics of the cluster as consumer groups see them: what subscriptions resolve against.
 * Implementations are thread-safe; each call may read a newer state of the cluster.
 */
public interface ClusterTopics {

    /** No topics at all. */
    ClusterTopics NONE = new ClusterTopics() {
        @Override
        public TopicMetadata topic(String name) {
            return null;
        }

        @Override
        public TopicMetadata topic(Uuid id) {
            return null;
        }

        @Override
        public Collection<String> names() {
            return java.util.List.of();
        }
    };

    /** The topic named {@code name}, or null if there is none. */
    TopicMetadata topic(String name);

    /** The topic with id {@code id}, or null if there is none. */
    TopicMetadata topic(Uuid id);

    /** Every topic's name, for regular-expression subscriptions. */
    Collection<String> names();
}
