package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.sasl.SaslSession;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * SaslHandshake v0-1: picks the connection's mechanism. The answer lists the listener's enabled
 * mechanisms, as Kafka's does (also with UNSUPPORTED_SASL_MECHANISM, after which the connection
 * closes). On a listener without SASL, or once authenticated, ILLEGAL_SASL_STATE with no
 * mechanisms, as Kafka answers there. Advertised on every listener, as Kafka does. Stateless; runs
 * on the connection's event loop (the session is confined to it).
 */
public final class SaslHandshakeHandler implements ApiHandler<SaslHandshakeRequest> {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SASL_HANDSHAKE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, SaslHandshakeRequest request) {
        SaslSession session = context.sasl();
        Errors error = session == null ? Errors.ILLEGAL_SASL_STATE
                : session.handshake(request.data().mechanism(), request.version());
        List<String> mechanisms = session == null || error == Errors.ILLEGAL_SASL_STATE ? List.of()
                : session.enabledMechanisms();
        return CompletableFuture.completedFuture(new SaslHandshakeResponse(new SaslHandshakeResponseData()
                .setErrorCode(error.code()).setMechanisms(mechanisms)));
    }
}
