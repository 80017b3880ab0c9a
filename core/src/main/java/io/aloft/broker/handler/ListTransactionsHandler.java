package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListTransactions (KIP-664; v1 adds the duration filter, KIP-994; v2 the id pattern, KIP-1152): the
 * transactions of the {@code __transaction_state} partitions this broker coordinates, filtered as
 * asked (the admin client asks every broker and merges).
 *
 * <p>Stateless; runs on the network thread, completes on a transaction coordinator shard's thread.
 */
public final class ListTransactionsHandler implements ApiHandler<ListTransactionsRequest> {
    private final TransactionCoordinator coordinator;

    public ListTransactionsHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_TRANSACTIONS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ListTransactionsRequest request) {
        // As Kafka: only the transactions one may DESCRIBE.
        return coordinator.listTransactions(request.data()).thenApply(data -> new ListTransactionsResponse(data
                .setTransactionStates(data.transactionStates().stream().filter(s -> context.authorized(
                        AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactionalId())).toList())
                .setThrottleTimeMs(0)));
    }
}
