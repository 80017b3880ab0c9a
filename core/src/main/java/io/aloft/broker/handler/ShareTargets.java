package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.fetch.SessionPartition;
import io.aloft.controller.model.TopicInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The partitions a ShareFetch or ShareAcknowledge names, resolved from topic id to name in one
 * metadata view and checked against READ on the topic (Kafka: share consumers need READ on each
 * topic they fetch or acknowledge): UNKNOWN_TOPIC_ID for an id the metadata does not know,
 * TOPIC_AUTHORIZATION_FAILED for a topic the principal may not read.
 *
 * <p>Confined to the thread building one response: made per request, caching per topic.
 */
final class ShareTargets {
    /** A partition resolved: {@code tp} (with its name) when {@code error} is NONE. */
    record Target(TopicIdPartition tp, Errors error) {
        boolean ok() {
            return error == Errors.NONE;
        }
    }

    private final MetadataCache.View view;
    private final RequestContext context;
    private final Map<Uuid, Object> topics = new HashMap<>(); // name, or the topic's error

    ShareTargets(MetadataCache.View view, RequestContext context) {
        this.view = view;
        this.context = context;
    }

    Target resolve(SessionPartition p) {
        Object topic = topics.computeIfAbsent(p.topicId(), this::lookUp);
        if (topic instanceof Errors e) {
            return new Target(null, e);
        }
        return new Target(new TopicIdPartition(p.topicId(), p.partition(), (String) topic), Errors.NONE);
    }

    private Object lookUp(Uuid id) {
        TopicInfo t = Uuid.ZERO_UUID.equals(id) ? null
                : view.topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
        if (t == null) {
            return Errors.UNKNOWN_TOPIC_ID;
        }
        if (!context.authorized(AclOperation.READ, ResourceType.TOPIC, t.name())) {
            return Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        return t.name();
    }
}
