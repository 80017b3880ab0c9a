package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.resource.ResourceType;

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
        // As Kafka: groups one may not DESCRIBE get GROUP_AUTHORIZATION_FAILED, after the others.
        List<String> refused = new ArrayList<>();
        List<String> allowed = new ArrayList<>();
        for (String g : request.data().groupIds()) {
            (context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g) ? allowed : refused).add(g);
        }
        CompletableFuture<ConsumerGroupDescribeResponseData> described = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new ConsumerGroupDescribeResponseData())
                : coordinator.consumerGroupDescribe(request.data().duplicate().setGroupIds(allowed),
                        request.version());
        return described.thenApply(data -> {
            refused.forEach(g -> data.groups().add(new ConsumerGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(g).setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.GROUP_AUTHORIZATION_FAILED.message())));
            return new ConsumerGroupDescribeResponse(data);
        });
    }
}
