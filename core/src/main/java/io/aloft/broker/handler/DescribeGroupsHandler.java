package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;

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
        return coordinator.describeGroups(request.data(), request.version())
                .thenApply(DescribeGroupsResponse::new);
    }
}
