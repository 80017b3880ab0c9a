package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * EndTxn: commits or aborts the producer's transaction. The answer comes once the decision is
 * durable in {@code __transaction_state}; the markers follow (the coordinator writes them).
 *
 * <p>v5 is how a client says it speaks transaction version 2 (KIP-890 part 2: an epoch bump per
 * transaction, partitions added by its partitions' leaders): its transaction ends at client
 * version 2 and the answer carries the producer id and epoch it goes on with. As in Kafka 4.3 the
 * request's version decides, not the finalized {@code transaction.version}: that feature tells
 * clients which version to speak (at level 1 Kafka's client sends v4 and below).
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

    /** The first version of transaction version 2 (KIP-890 part 2). */
    static final short FIRST_TV2_VERSION = 5;

    @Override
    public short maxVersion() {
        return FIRST_TV2_VERSION;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, EndTxnRequest request) {
        EndTxnRequestData data = request.data();
        if (!context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception())); // as Kafka
        }
        boolean v2 = request.version() >= FIRST_TV2_VERSION;
        return coordinator.endTxn(data.transactionalId(), data.producerId(), data.producerEpoch(), data.committed(),
                        (short) (v2 ? 2 : 1))
                .thenApply(r -> {
                    EndTxnResponseData out = new EndTxnResponseData().setThrottleTimeMs(0)
                            .setErrorCode(ProducerFencedErrors.forVersion(r.error(), request.version(),
                                    ProducerFencedErrors.END_TXN).code());
                    if (v2) {
                        out.setProducerId(r.producerId()).setProducerEpoch(r.producerEpoch());
                    }
                    return new EndTxnResponse(out);
                });
    }
}
