package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * OffsetFetch: committed offsets of one group (v1-7) or several (v8+). requireStable needs no
 * waiting here: there are no transactional offset commits to be pending.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {
    private final GroupCoordinator coordinator;

    public OffsetFetchHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FETCH;
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
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetFetchRequest request) {
        return coordinator.fetchOffsets(request.data(), request.version())
                .thenApply(data -> new OffsetFetchResponse(data, request.version()));
    }
}
