package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit: answered once the offsets are durable in {@code __consumer_offsets}. Topics are
 * named by id from v10, resolved through the metadata cache.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequest> {
    private final GroupCoordinator coordinator;

    public OffsetCommitHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    /**
     * Up to v10, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 10;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetCommitRequest request) {
        return coordinator.commitOffsets(request.data(), request.version())
                .thenApply(OffsetCommitResponse::new);
    }
}
