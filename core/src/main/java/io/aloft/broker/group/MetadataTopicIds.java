package io.aloft.broker.group;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Topic ids from the broker's metadata cache, for OffsetCommit/OffsetFetch v10+. Thread-safe:
 * each call reads one published view of the cache.
 */
public final class MetadataTopicIds implements TopicIdResolver {
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
}
