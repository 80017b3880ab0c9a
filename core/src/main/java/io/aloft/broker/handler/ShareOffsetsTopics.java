package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Topic names and ids as the share-group offsets APIs need them (requests name topics, share
 * state is keyed by topic id), from this broker's metadata. Thread-safe (reads the cache's
 * immutable view).
 */
final class ShareOffsetsTopics {
    /** A topic as the metadata knows it now. */
    record Topic(String name, Uuid id, int partitions) {
        boolean has(int partition) {
            return partition >= 0 && partition < partitions;
        }
    }

    private final MetadataCache cache;

    ShareOffsetsTopics(MetadataCache cache) {
        this.cache = cache;
    }

    /** The topic named {@code name}, or null. */
    Topic byName(String name) {
        return of(name == null ? null : cache.view().topic(name));
    }

    /** The topic with id {@code id}, or null (deleted since its state was made). */
    Topic byId(Uuid id) {
        return of(cache.view().topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits())));
    }

    /**
     * Why a change to the share offsets of topic {@code name} ({@code topic} as {@link #byName} found
     * it) is refused, or NONE: READ on the topic is needed (checked first, so a caller without it
     * does not learn whether the topic exists), then the topic must exist.
     */
    static Errors changeRefusal(RequestContext context, String name, Topic topic) {
        return !context.authorized(AclOperation.READ, ResourceType.TOPIC, name) ? Errors.TOPIC_AUTHORIZATION_FAILED
                : topic == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE;
    }

    private static Topic of(TopicInfo t) {
        return t == null ? null : new Topic(t.name(), new Uuid(t.topicId().getMostSignificantBits(),
                t.topicId().getLeastSignificantBits()), t.partitions().size());
    }
}
