package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Heartbeat: keeps a member's session alive and tells it when a rebalance has started.
 */
public final class HeartbeatHandler implements ApiHandler<HeartbeatRequest> {
    private final GroupCoordinator coordinator;

    public HeartbeatHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.HEARTBEAT;
    }

    /**
     * Up to v4, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, HeartbeatRequest request) {
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, request.data().groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        return coordinator.heartbeat(request.data(), request.version())
                .thenApply(HeartbeatResponse::new);
    }
}
