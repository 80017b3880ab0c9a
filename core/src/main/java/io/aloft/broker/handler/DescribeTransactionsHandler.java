package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;

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
        return coordinator.describeTransactions(request.data().transactionalIds())
                .thenApply(data -> new DescribeTransactionsResponse(data.setThrottleTimeMs(0)));
    }
}
