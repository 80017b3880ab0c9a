package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTransactions (KIP-664, {@code kafka-transactions.sh describe}): each transactional id's
 * state from its coordinator shard, in request order; an id this broker does not coordinate gets
 * NOT_COORDINATOR (the admin client looks its coordinator up first).
 *
 * <p>Stateless; runs on the network thread, completes on a transaction coordinator shard's thread.
 */
public final class DescribeTransactionsHandler implements ApiHandler<DescribeTransactionsRequest> {
    private final TransactionCoordinator coordinator;

    public DescribeTransactionsHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_TRANSACTIONS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeTransactionsRequest request) {
        // As Kafka: ids one may not DESCRIBE get TRANSACTIONAL_ID_AUTHORIZATION_FAILED, after the others;
        // a transaction's topics one may not DESCRIBE are left out.
        List<String> allowed = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String id : request.data().transactionalIds()) {
            (context.authorized(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id) ? allowed : refused).add(id);
        }
        CompletableFuture<DescribeTransactionsResponseData> described = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new DescribeTransactionsResponseData())
                : coordinator.describeTransactions(allowed);
        return described.thenApply(data -> {
            for (DescribeTransactionsResponseData.TransactionState s : data.transactionStates()) {
                DescribeTransactionsResponseData.TopicDataCollection topics =
                        new DescribeTransactionsResponseData.TopicDataCollection();
                s.topics().forEach(t -> {
                    if (context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic())) {
                        topics.add(t.duplicate());
                    }
                });
                s.setTopics(topics);
            }
            refused.forEach(id -> data.transactionStates().add(new DescribeTransactionsResponseData.TransactionState()
                    .setTransactionalId(id).setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())));
            return new DescribeTransactionsResponse(data.setThrottleTimeMs(0));
        });
    }
}
