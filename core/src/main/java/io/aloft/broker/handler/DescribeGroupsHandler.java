package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeGroups: state, protocol and members of groups this broker coordinates.
 */
public final class DescribeGroupsHandler implements ApiHandler<DescribeGroupsRequest> {
    private final GroupCoordinator coordinator;

    public DescribeGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_GROUPS;
    }

    /**
     * Up to v6, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 6;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeGroupsRequest request) {
        // As Kafka: groups one may not DESCRIBE get GROUP_AUTHORIZATION_FAILED, after the others.
        List<String> refused = new ArrayList<>();
        List<String> allowed = new ArrayList<>();
        for (String g : request.data().groups()) {
            (context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g) ? allowed : refused).add(g);
        }
        CompletableFuture<DescribeGroupsResponseData> described = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new DescribeGroupsResponseData())
                : coordinator.describeGroups(request.data().duplicate().setGroups(allowed), request.version());
        return described.thenApply(data -> {
            refused.forEach(g -> data.groups().add(DescribeGroupsResponse.groupError(g,
                    Errors.GROUP_AUTHORIZATION_FAILED)));
            return new DescribeGroupsResponse(data);
        });
    }
}
