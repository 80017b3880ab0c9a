package io.aloft.broker.handler;

import io.aloft.broker.api.RequestContext;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The topic check of the KIP-848 heartbeats (ConsumerGroupHeartbeat, ShareGroupHeartbeat): as Kafka,
 * subscribing to a topic one may not DESCRIBE fails the whole heartbeat, naming the topics. Stateless.
 */
final class SubscriptionAuthorization {
    private SubscriptionAuthorization() {
    }

    /**
     * The error for a heartbeat subscribing to {@code subscribed} (null: the subscription is unchanged),
     * naming the topics the caller may not describe, sorted; or null when it may describe them all.
     */
    static TopicAuthorizationException refusal(RequestContext context, List<String> subscribed) {
        if (subscribed == null) {
            return null;
        }
        List<String> refused = subscribed.stream()
                .filter(t -> !context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t)).sorted().toList();
        return refused.isEmpty() ? null
                : new TopicAuthorizationException("The group member is not authorized to access topics: " + refused);
    }
}
