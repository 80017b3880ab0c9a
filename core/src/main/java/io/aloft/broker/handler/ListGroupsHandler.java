package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListGroups: the groups this broker coordinates (each broker lists its own, as in Kafka; the
 * admin client asks every broker).
 */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequest> {
    private final GroupCoordinator coordinator;

    public ListGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_GROUPS;
    }

    /**
     * Up to v5, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ListGroupsRequest request) {
        // As Kafka: DESCRIBE on the cluster lists every group, else only the groups one may DESCRIBE.
        boolean all = context.authorizedOnCluster(AclOperation.DESCRIBE);
        return coordinator.listGroups(request.data(), request.version()).thenApply(data -> {
            if (!all) {
                data.setGroups(data.groups().stream()
                        .filter(g -> context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId()))
                        .toList());
            }
            return new ListGroupsResponse(data);
        });
    }
}
