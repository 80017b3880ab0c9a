package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;

/**
 * ConsumerGroupDescribe (KIP-848): epochs, assignor, members with their current and target
 * assignments. When group.coordinator.rebalance.protocols leaves out consumer it answers
 * UNSUPPORTED_VERSION (still advertised, as Kafka 4.3 does).
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequest> {
    private final GroupCoordinator coordinator;

    public ConsumerGroupDescribeHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CONSUMER_GROUP_DESCRIBE;
    }

    /** v0-1, as Kafka 4.3 serves (v1 adds the member type, KIP-1099). */
    @Override
    public short maxVersion() {
        return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ConsumerGroupDescribeRequest request) {
        if (!coordinator.consumerProtocolEnabled()) {
            return CompletableFuture.completedFuture(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        }
        return coordinator.consumerGroupDescribe(request.data(), request.version())
                .thenApply(ConsumerGroupDescribeResponse::new);
    }
}
