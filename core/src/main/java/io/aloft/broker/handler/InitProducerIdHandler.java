package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.producer.ProducerIdManager;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * InitProducerId for idempotent producers: a new producer id with epoch 0, or (KIP-360, v3+) the
 * caller's id with the next epoch after an error. A transactional id goes to the transaction
 * coordinator when {@code aloft.transactions.enable} is on; otherwise it is refused with
 * INVALID_REQUEST, which no client retries (Kafka's "incompatible broker" code), where a retriable
 * code such as NOT_COORDINATOR would have it retry until its timeout. Java clients never get there:
 * their FindCoordinator for the transactional id fails first ({@link FindCoordinatorHandler}).
 *
 * <p>Stateless; runs on the network thread, completes on the controller client's thread (idempotent)
 * or a transaction coordinator shard's thread (transactional).
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequest> {
    private final ProducerIdManager ids;
    private final TransactionCoordinator transactions;

    public InitProducerIdHandler(ProducerIdManager ids) {
        this(ids, null);
    }

    /** @param transactions the transaction coordinator, or null while transactions are off */
    public InitProducerIdHandler(ProducerIdManager ids, TransactionCoordinator transactions) {
        this.ids = ids;
        this.transactions = transactions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INIT_PRODUCER_ID;
    }

    /** Up to v5, as Kafka 4.3 serves (v6 is KIP-939's two-phase commit, which it does not enable). */
    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, InitProducerIdRequest request) {
        InitProducerIdRequestData data = request.data();
        // As Kafka 4: a transactional producer needs WRITE on its transactional id; an idempotent one
        // IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679).
        if (data.transactionalId() != null
                ? !context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())
                : !context.authorizedOnCluster(AclOperation.IDEMPOTENT_WRITE)
                        && !context.authorizedOnAny(AclOperation.WRITE, ResourceType.TOPIC)) {
            return CompletableFuture.completedFuture(request.getErrorResponse(data.transactionalId() != null
                    ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception()
                    : Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        if (data.transactionalId() != null && transactions != null) {
            return transactions.initProducerId(data.transactionalId(), data.transactionTimeoutMs(), data.producerId(),
                    data.producerEpoch()).thenApply(r -> new InitProducerIdResponse(new InitProducerIdResponseData()
                            .setThrottleTimeMs(0).setProducerId(r.producerId()).setProducerEpoch(r.producerEpoch())
                            .setErrorCode(ProducerFencedErrors.forVersion(r.error(), request.version(),
                                    ProducerFencedErrors.INIT_PRODUCER_ID).code())));
        }
        if (data.transactionalId() != null) {
            return done(new InitProducerIdResponseData().setErrorCode(Errors.INVALID_REQUEST.code())
                    .setProducerId(-1).setProducerEpoch((short) -1));
        }
        if (data.producerId() >= 0 && data.producerEpoch() >= 0 && data.producerEpoch() < Short.MAX_VALUE - 1) {
            return done(new InitProducerIdResponseData().setErrorCode(Errors.NONE.code())
                    .setProducerId(data.producerId()).setProducerEpoch((short) (data.producerEpoch() + 1)));
        }
        return ids.nextId().handle((id, error) -> {
            if (error != null) {
                return new InitProducerIdResponse(new InitProducerIdResponseData().setThrottleTimeMs(0)
                        .setErrorCode(ControllerErrors.toKafka(error).code()).setProducerId(-1)
                        .setProducerEpoch((short) -1));
            }
            return new InitProducerIdResponse(new InitProducerIdResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.NONE.code()).setProducerId(id).setProducerEpoch((short) 0));
        });
    }

    private static CompletableFuture<AbstractResponse> done(InitProducerIdResponseData data) {
        return CompletableFuture.completedFuture(new InitProducerIdResponse(data.setThrottleTimeMs(0)));
    }
}
