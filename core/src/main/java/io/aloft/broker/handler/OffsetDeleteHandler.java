package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;

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
        return coordinator.deleteOffsets(request.data(), request.version())
                .thenApply(OffsetDeleteResponse::new);
    }
}
