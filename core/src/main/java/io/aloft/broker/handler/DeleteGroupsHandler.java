package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;

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
        return coordinator.deleteGroups(request.data(), request.version())
                .thenApply(DeleteGroupsResponse::new);
    }
}
