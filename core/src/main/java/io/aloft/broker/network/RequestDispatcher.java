package io.aloft.broker.network;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.api.RequestThrottle;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each request to the handler of its API key, and is the one place where a failed handler
 * becomes a Kafka error response: a handler that throws, whose future fails, or that completes
 * with no response is answered with the request type's own error response
 * ({@link AbstractRequest#getErrorResponse}), carrying the code Kafka maps the exception to
 * (UNKNOWN_SERVER_ERROR for anything unexpected, logged once). Knows exactly which keys and
 * versions are served, for ApiVersions. Requests are counted by the connection that reads them
 * ({@link NetworkMetrics}), not here. Each request is charged to its client's quotas here
 * ({@link RequestThrottle}), and the throttle time set on its response, error responses included.
 *
 * <p>Thread-safe: immutable after construction; handlers are called on the connection's event loop.
 */
public final class RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);

    private final Map<ApiKeys, ApiHandler<?>> handlers = new EnumMap<>(ApiKeys.class);
    private final RequestThrottle throttle;

    /** Dispatching with no client quotas. */
    public RequestDispatcher(Collection<ApiHandler<?>> handlerList) {
        this(handlerList, RequestThrottle.NONE);
    }

    public RequestDispatcher(Collection<ApiHandler<?>> handlerList, RequestThrottle throttle) {
        this.throttle = throttle;
        for (ApiHandler<?> h : handlerList) {
            if (handlers.put(h.apiKey(), h) != null) {
                throw new IllegalArgumentException("two handlers for " + h.apiKey());
            }
            if (h.advertisedMinVersion() > h.minVersion() || h.minVersion() > h.maxVersion()
                    || h.maxVersion() > h.apiKey().latestVersion(true)) {
                throw new IllegalArgumentException(h.apiKey() + ": inconsistent versions: advertised from "
                        + h.advertisedMinVersion() + ", served " + h.minVersion() + " to " + h.maxVersion());
            }
        }
    }

    public boolean supports(ApiKeys key, short version) {
        ApiHandler<?> h = handlers.get(key);
        return h != null && version >= h.minVersion() && version <= h.maxVersion();
    }

    /** The advertised APIs and version ranges, as ApiVersions reports them. */
    public ApiVersionCollection apiVersions() {
        ApiVersionCollection versions = new ApiVersionCollection();
        for (ApiHandler<?> h : handlers.values()) {
            versions.add(new ApiVersion().setApiKey(h.apiKey().id).setMinVersion(h.advertisedMinVersion())
                    .setMaxVersion(h.maxVersion()));
        }
        return versions;
    }

    /** The handled API keys, in id order. */
    public List<ApiKeys> apiKeys() {
        return List.copyOf(handlers.keySet());
    }

    /**
     * The handler's response, or the request's error response if the handler failed. Fails only if
     * no error response can be built; for Produce with acks=0 a failure completes with null (that
     * request has no response, and no error response).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    CompletableFuture<AbstractResponse> dispatch(RequestContext context, AbstractRequest request) {
        ApiHandler handler = handlers.get(request.apiKey());
        CompletableFuture<AbstractResponse> response;
        RequestThrottle.Charge charge = throttle.charge(context, request);
        long start = System.nanoTime();
        try {
            response = handler.handle(context, request);
            if (response == null) {
                response = CompletableFuture.failedFuture(new IllegalStateException("the " + request.apiKey()
                        + " handler returned no future"));
            }
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        long handlerNanos = System.nanoTime() - start;
        return response.handle((r, e) -> {
            int throttleMs = charge.throttleMs(e == null ? r : null, handlerNanos);
            AbstractResponse answer = e == null && r != null ? r : errorResponse(context, request, e);
            if (throttleMs > 0 && answer != null && throttleMs > answer.throttleTimeMs()) {
                answer.maybeSetThrottleTimeMs(throttleMs);
            }
            return answer;
        });
    }

    private static AbstractResponse errorResponse(RequestContext context, AbstractRequest request, Throwable e) {
        Throwable cause = e == null ? new IllegalStateException("the " + request.apiKey()
                + " handler completed with no response") : unwrap(e);
        if (cause instanceof ApiException) {
            log.debug("{} v{} (correlation id {}) from {} failed: {}", request.apiKey(), request.version(),
                    context.header().correlationId(), context.connectionId(), cause.toString());
        } else {
            log.warn("{} v{} (correlation id {}) from {} failed; answering with its error response",
                    request.apiKey(), request.version(), context.header().correlationId(), context.connectionId(),
                    cause);
        }
        return request.getErrorResponse(cause);
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
