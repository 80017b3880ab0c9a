package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddOffsetsToTxn (sendOffsetsToTransaction's first step): adds the group's
 * {@code __consumer_offsets} partition to the transaction, so its commit or abort marker reaches the
 * group's offsets. v0-v4 are all the client form and transaction version 1.
 *
 * <p>Stateless; runs on the network thread, completes on a transaction coordinator shard's thread.
 */
public final class AddOffsetsToTxnHandler implements ApiHandler<AddOffsetsToTxnRequest> {
    private final TransactionCoordinator coordinator;
    private final ToIntFunction<String> groupPartition;

    /** @param groupPartition the group coordinator's partitionFor(groupId) */
    public AddOffsetsToTxnHandler(TransactionCoordinator coordinator, ToIntFunction<String> groupPartition) {
        this.coordinator = coordinator;
        this.groupPartition = groupPartition;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ADD_OFFSETS_TO_TXN;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AddOffsetsToTxnRequest request) {
        AddOffsetsToTxnRequestData data = request.data();
        // As Kafka: WRITE on the transactional id, then READ on the group.
        if (!context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception()));
        }
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        int partition = groupPartition.applyAsInt(data.groupId() == null ? "" : data.groupId());
        return coordinator.addOffsetsToTxn(data.transactionalId(), data.producerId(), data.producerEpoch(), partition,
                        (short) 1)
                .thenApply(error -> new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData().setThrottleTimeMs(0)
                        .setErrorCode(ProducerFencedErrors.forVersion(error, request.version(),
                                ProducerFencedErrors.ADD_OFFSETS_TO_TXN).code())));
    }
}
