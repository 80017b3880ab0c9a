package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetDelete: deletes a group's offsets of partitions it is not consuming (KIP-496).
 */
public final class OffsetDeleteHandler implements ApiHandler<OffsetDeleteRequest> {
    private final GroupCoordinator coordinator;

    public OffsetDeleteHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_DELETE;
    }

    /**
     * Up to v0, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 0;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetDeleteRequest request) {
        // As Kafka: DELETE on the group, else the whole request is refused; READ on each topic.
        if (!context.authorized(AclOperation.DELETE, ResourceType.GROUP, request.data().groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        OffsetDeleteRequestTopicCollection allowed = new OffsetDeleteRequestTopicCollection();
        List<OffsetDeleteRequestTopic> refused = new ArrayList<>();
        for (OffsetDeleteRequestTopic t : request.data().topics()) {
            if (context.authorized(AclOperation.READ, ResourceType.TOPIC, t.name())) {
                allowed.add(t.duplicate());
            } else {
                refused.add(t);
            }
        }
        if (refused.isEmpty()) {
            return coordinator.deleteOffsets(request.data(), request.version()).thenApply(OffsetDeleteResponse::new);
        }
        return coordinator.deleteOffsets(request.data().duplicate().setTopics(allowed), request.version())
                .thenApply(data -> {
                    for (OffsetDeleteRequestTopic t : refused) {
                        OffsetDeleteResponsePartitionCollection parts = new OffsetDeleteResponsePartitionCollection();
                        t.partitions().forEach(p -> parts.add(new OffsetDeleteResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                        data.topics().add(new OffsetDeleteResponseTopic().setName(t.name()).setPartitions(parts));
                    }
                    return new OffsetDeleteResponse(data);
                });
    }
}
