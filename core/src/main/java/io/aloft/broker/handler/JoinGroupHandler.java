package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * JoinGroup: a member joins (or rejoins) a classic group; the response waits for the rebalance
 * to complete, so it may be held for up to the group's rebalance timeout.
 */
public final class JoinGroupHandler implements ApiHandler<JoinGroupRequest> {
    private final GroupCoordinator coordinator;

    public JoinGroupHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.JOIN_GROUP;
    }

    /**
     * Up to v9, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 9;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, JoinGroupRequest request) {
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, request.data().groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        return coordinator.joinGroup(request.data(), request.version(), context.header().clientId(),
                        clientHost(context))
                .thenApply(data -> new JoinGroupResponse(data, request.version()));
    }

    /** The client's address the way Kafka shows it in DescribeGroups ("/127.0.0.1"). */
    private static String clientHost(RequestContext context) {
        return context.clientAddress().getAddress().toString();
    }
}
