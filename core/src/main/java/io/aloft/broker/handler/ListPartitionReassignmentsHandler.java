package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;

/**
 * ListPartitionReassignments: always an empty list, for every topic asked about (or all). Kafka
 * lists a partition while new replicas copy its data; here a move copies nothing: once
 * AlterPartitionReassignments has answered, the controller has made the target broker the
 * partition's sole replica and leader, which is what {@code kafka-reassign-partitions.sh --verify}
 * then finds in Metadata. The short handoff that follows (the old broker uploads the partition's
 * WAL data, the new one opens it on its first request) is not tracked cluster-wide; clients see it
 * as retriable NOT_LEADER_OR_FOLLOWER errors for about a second.
 *
 * <p>Immutable (stateless).
 */
public final class ListPartitionReassignmentsHandler implements ApiHandler<ListPartitionReassignmentsRequest> {
    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_PARTITION_REASSIGNMENTS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context,
            ListPartitionReassignmentsRequest request) {
        if (!context.authorizedOnCluster(AclOperation.DESCRIBE)) { // as Kafka's controller
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponse(
                new ListPartitionReassignmentsResponseData().setThrottleTimeMs(0).setErrorCode(Errors.NONE.code())
                        .setTopics(List.of())));
    }
}
