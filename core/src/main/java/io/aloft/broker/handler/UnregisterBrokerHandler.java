package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.failover.BrokerRemoval;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.UnregisterBrokerRequest;
import org.apache.kafka.common.requests.UnregisterBrokerResponse;

/**
 * UnregisterBroker: an operator removes a broker that is gone for good ({@code kafka-cluster.sh
 * unregister --id N}, Admin's unregisterBroker). Kafka just drops the registration; here a broker
 * may still hold acknowledged data in its WAL, so the answer comes once the broker is fenced, its
 * WAL recovered by a live broker and its registration dropped ({@link BrokerRemoval}): about a
 * session ({@code broker.session.timeout.ms}) plus the recovery. Errors as Kafka's: an id not
 * registered answers BROKER_ID_NOT_REGISTERED; a removal not finished within {@link #TIMEOUT_MS}
 * (under the Admin client's 30 s request timeout) answers REQUEST_TIMED_OUT with what it waits for,
 * and asking again goes on from there.
 *
 * <p>Stateless; the answer completes on the controller client's or the broker scheduler's threads.
 */
public final class UnregisterBrokerHandler implements ApiHandler<UnregisterBrokerRequest> {
    static final long TIMEOUT_MS = 25_000;

    private final BrokerRemoval removal;

    public UnregisterBrokerHandler(BrokerRemoval removal) {
        this.removal = removal;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.UNREGISTER_BROKER;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, UnregisterBrokerRequest request) {
        if (!context.authorizedOnCluster(AclOperation.ALTER)) { // as Kafka's controller
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        return removal.remove(request.data().brokerId(), TIMEOUT_MS).handle((v, failure) -> {
            UnregisterBrokerResponseData data = new UnregisterBrokerResponseData().setThrottleTimeMs(0);
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                Errors error = cause instanceof BrokerRemoval.RemovalException r
                        ? (r.notRegistered() ? Errors.BROKER_ID_NOT_REGISTERED : Errors.REQUEST_TIMED_OUT)
                        : ControllerErrors.toKafka(cause);
                data.setErrorCode(error.code()).setErrorMessage(cause instanceof BrokerRemoval.RemovalException
                        ? cause.getMessage() : ControllerErrors.message(cause));
            }
            return new UnregisterBrokerResponse(data);
        });
    }
}
