package io.aloft.broker.group;

import org.apache.kafka.common.Uuid;

/**
 * Maps topic ids to names and back, for OffsetCommit and OffsetFetch v10+, which name topics by
 * id. Offsets are stored by topic name, as in Kafka. Implementations are thread-safe.
 */
public interface TopicIdResolver {

    /** Resolves nothing: requests naming topics by id get UNKNOWN_TOPIC_ID. */
    TopicIdResolver NONE = new TopicIdResolver() {
        @Override
        public String name(Uuid id) {
            return null;
        }

        @Override
        public Uuid id(String name) {
            return null;
        }
    };

    /** The topic's name, or null if no topic has this id. */
    String name(Uuid id);

    /** The topic's id, or null if there is no such topic. */
    Uuid id(String name);
}
