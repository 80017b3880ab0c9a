package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupHeartbeat (KIP-848): a member of a consumer group joins, heartbeats (reporting what
 * it owns, learning its assignment) or leaves. Answered once the group's records are durable.
 * When group.coordinator.rebalance.protocols leaves out consumer it answers UNSUPPORTED_VERSION (still
 * advertised, as Kafka 4.3 does).
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler<ConsumerGroupHeartbeatRequest> {
    private final GroupCoordinator coordinator;

    public ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CONSUMER_GROUP_HEARTBEAT;
    }

    /** v0-1, as Kafka 4.3 serves (v1: regex subscriptions and client-generated member ids). */
    @Override
    public short maxVersion() {
        return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ConsumerGroupHeartbeatRequest request) {
        if (!coordinator.consumerProtocolEnabled()) {
            return CompletableFuture.completedFuture(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        }
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, request.data().groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        TopicAuthorizationException refused = SubscriptionAuthorization.refusal(context,
                request.data().subscribedTopicNames());
        if (refused != null) {
            return CompletableFuture.completedFuture(request.getErrorResponse(refused));
        }
        return coordinator.consumerGroupHeartbeat(request.data(), request.version(), context.header().clientId(),
                        context.clientAddress().getAddress().toString())
                .thenApply(ConsumerGroupHeartbeatResponse::new);
    }
}
