package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteGroups: empty groups and their offsets are deleted; a group with members is refused
 * with NON_EMPTY_GROUP.
 */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequest> {
    private final GroupCoordinator coordinator;

    public DeleteGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_GROUPS;
    }

    /**
     * Up to v2, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 2;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteGroupsRequest request) {
        // As Kafka: groups one may not DELETE get GROUP_AUTHORIZATION_FAILED, after the others.
        List<String> refused = new ArrayList<>();
        List<String> allowed = new ArrayList<>();
        for (String g : request.data().groupsNames()) {
            (context.authorized(AclOperation.DELETE, ResourceType.GROUP, g) ? allowed : refused).add(g);
        }
        CompletableFuture<DeleteGroupsResponseData> deleted = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new DeleteGroupsResponseData())
                : coordinator.deleteGroups(request.data().duplicate().setGroupsNames(allowed), request.version());
        return deleted.thenApply(data -> {
            refused.forEach(g -> data.results().add(new DeleteGroupsResponseData.DeletableGroupResult()
                    .setGroupId(g).setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
            return new DeleteGroupsResponse(data);
        });
    }
}
