package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.sasl.SaslSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SaslAuthenticate v0-2: checks the client's token (KIP-152 framing), also when re-authenticating
 * (KIP-368); success sets the connection's principal ({@code User:<name>}, in its
 * {@code ConnectionSecurity}). A step of a longer exchange (SCRAM's client-first): NONE and the
 * server's message. Success: NONE, the server's last token (empty for PLAIN, SCRAM's server-final),
 * and from v1 the session lifetime
 * ({@code connections.max.reauth.ms}; 0: none). Failure: SASL_AUTHENTICATION_FAILED with Kafka's message,
 * held back on {@code scheduler} ({@code connection.failed.authentication.delay.ms}, growing for an
 * address that keeps failing: {@link SaslSession#failureDelayMs}), then the connection closes; one INFO line names the connection, address and mechanism, never the user
 * name or password. Outside a SASL exchange (a listener without SASL, or already authenticated):
 * ILLEGAL_SASL_STATE, as Kafka answers. Stateless; runs on the connection's event loop.
 */
public final class SaslAuthenticateHandler implements ApiHandler<SaslAuthenticateRequest> {
    private static final Logger log = LoggerFactory.getLogger(SaslAuthenticateHandler.class);

    private final ScheduledExecutorService scheduler;

    /** @param scheduler where failed answers wait out their delay */
    public SaslAuthenticateHandler(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SASL_AUTHENTICATE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, SaslAuthenticateRequest request) {
        SaslSession session = context.sasl();
        if (session == null || session.exchangeDone()) {
            return CompletableFuture.completedFuture(answer(Errors.ILLEGAL_SASL_STATE,
                    "SaslAuthenticate request received after successful authentication"));
        }
        SaslSession.Result result = session.authenticate(request.data().authBytes());
        if (result.succeeded()) {
            SaslAuthenticateResponse ok = answer(Errors.NONE, ""); // Kafka's success carries an empty message
            ok.data().setAuthBytes(result.response());
            if (result.complete()) {
                context.security().authenticated(session.principal());
                log.debug("Connection {} from {} authenticated as {} with {}", context.connectionId(),
                        context.clientAddress(), session.principal(), session.mechanism());
                if (request.version() >= 1) {
                    ok.data().setSessionLifetimeMs(session.sessionLifetimeMs());
                }
            }
            return CompletableFuture.completedFuture(ok);
        }
        log.info("Failed authentication of connection {} from {} on listener {} with SASL mechanism {} ({})",
                context.connectionId(), context.clientAddress(), context.listenerName(), session.mechanism(),
                result.error());
        AbstractResponse failed = answer(Errors.SASL_AUTHENTICATION_FAILED, result.error());
        long delay = session.failureDelayMs(context.clientAddress().getAddress());
        if (delay == 0) {
            return CompletableFuture.completedFuture(failed);
        }
        CompletableFuture<AbstractResponse> later = new CompletableFuture<>();
        scheduler.schedule(() -> later.complete(failed), delay, TimeUnit.MILLISECONDS);
        return later;
    }

    private static SaslAuthenticateResponse answer(Errors error, String message) {
        return new SaslAuthenticateResponse(new SaslAuthenticateResponseData().setErrorCode(error.code())
                .setErrorMessage(message).setAuthBytes(new byte[0]).setSessionLifetimeMs(0));
    }
}
