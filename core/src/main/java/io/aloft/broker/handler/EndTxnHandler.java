package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;

/**
 * EndTxn: commits or aborts the producer's transaction. The answer comes once the decision is
 * durable in {@code __transaction_state}; the markers follow (the coordinator writes them).
 *
 * <p>Up to v4 only: v5 is how a client says it speaks transaction version 2 (KIP-890 part 2: an
 * epoch bump per transaction, partitions added implicitly by Produce), which this broker does not
 * offer yet, so every transaction here is version 1.
 *
 * <p>Stateless; runs on the network thread, completes on a transaction coordinator shard's thread.
 */
public final class EndTxnHandler implements ApiHandler<EndTxnRequest> {
    private final TransactionCoordinator coordinator;

    public EndTxnHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.END_TXN;
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, EndTxnRequest request) {
        EndTxnRequestData data = request.data();
        return coordinator.endTxn(data.transactionalId(), data.producerId(), data.producerEpoch(), data.committed(),
                        (short) 1)
                .thenApply(r -> new EndTxnResponse(new EndTxnResponseData().setThrottleTimeMs(0)
                        .setErrorCode(ProducerFencedErrors.forVersion(r.error(), request.version(),
                                ProducerFencedErrors.END_TXN).code())));
    }
}
