package io.aloft.broker.group;

import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.Collection;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Topics from the broker's metadata cache: ids for OffsetCommit/OffsetFetch v10+, and names, ids and
 * partition counts for consumer-group subscriptions. Thread-safe: each call reads one published
 * view of the cache.
 */
public final class MetadataTopicIds implements TopicIdResolver, ClusterTopics {
    private final MetadataCache cache;

    public MetadataTopicIds(MetadataCache cache) {
        this.cache = cache;
    }

    @Override
    public String name(Uuid id) {
        if (id == null) {
            return null;
        }
        TopicInfo t = cache.view().topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
        return t == null ? null : t.name();
    }

    @Override
    public Uuid id(String name) {
        TopicInfo t = name == null ? null : cache.view().topic(name);
        return t == null ? null : new Uuid(t.topicId().getMostSignificantBits(), t.topicId().getLeastSignificantBits());
    }

    @Override
    public TopicMetadata topic(String name) {
        return metadata(name == null ? null : cache.view().topic(name));
    }

    @Override
    public TopicMetadata topic(Uuid id) {
        return metadata(id == null ? null
                : cache.view().topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits())));
    }

    @Override
    public Collection<String> names() {
        return cache.view().topicsByName().keySet();
    }

    private static TopicMetadata metadata(TopicInfo t) {
        return t == null ? null : new TopicMetadata(new Uuid(t.topicId().getMostSignificantBits(),
                t.topicId().getLeastSignificantBits()), t.name(), t.partitions().size());
    }
}
