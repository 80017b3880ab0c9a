package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.ShareGroupService;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ShareGroupHeartbeat (KIP-932): a member of a share group joins (epoch 0, with the member id it
 * generated), heartbeats (learning its assignment) or leaves (epoch -1). Answered once the group's
 * records are durable. Registered only when share groups are enabled ({@code aloft.share.version}).
 * Stateless.
 */
public final class ShareGroupHeartbeatHandler implements ApiHandler<ShareGroupHeartbeatRequest> {
    private final ShareGroupService shareGroups;

    public ShareGroupHeartbeatHandler(ShareGroupService shareGroups) {
        this.shareGroups = shareGroups;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SHARE_GROUP_HEARTBEAT;
    }

    /** v1, as Kafka 4.3 serves (v0 was the early-access version, no longer served). */
    @Override
    public short minVersion() {
        return 1;
    }

    @Override
    public short maxVersion() {
        return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ShareGroupHeartbeatRequest request) {
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, request.data().groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        TopicAuthorizationException refused = SubscriptionAuthorization.refusal(context,
                request.data().subscribedTopicNames());
        if (refused != null) {
            return CompletableFuture.completedFuture(request.getErrorResponse(refused));
        }
        return shareGroups.heartbeat(request.data(), context.header().clientId(),
                        context.clientAddress().getAddress().toString())
                .thenApply(ShareGroupHeartbeatResponse::new);
    }
}
