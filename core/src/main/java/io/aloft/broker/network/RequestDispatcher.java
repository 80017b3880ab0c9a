package io.aloft.broker.network;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each request to the handler of its API key, and is the one place where a failed handler
 * becomes a Kafka error response (the request type's own error response, with the code Kafka maps
 * the exception to). Knows exactly which keys and versions are served, for ApiVersions.
 */
public final class RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);

    private final Map<ApiKeys, ApiHandler<?>> handlers = new EnumMap<>(ApiKeys.class);

    public RequestDispatcher(Collection<ApiHandler<?>> handlerList) {
        for (ApiHandler<?> h : handlerList) {
            if (handlers.put(h.apiKey(), h) != null) {
                throw new IllegalArgumentException("two handlers for " + h.apiKey());
            }
        }
    }

    public boolean supports(ApiKeys key, short version) {
        ApiHandler<?> h = handlers.get(key);
        return h != null && version >= h.minVersion() && version <= h.maxVersion();
    }

    /** The served APIs and version ranges, as ApiVersions reports them. */
    public ApiVersionCollection apiVersions() {
        ApiVersionCollection versions = new ApiVersionCollection();
        for (ApiHandler<?> h : handlers.values()) {
            versions.add(new ApiVersion().setApiKey(h.apiKey().id).setMinVersion(h.minVersion())
                    .setMaxVersion(h.maxVersion()));
        }
        return versions;
    }

    /** The handled API keys, in id order. */
    public List<ApiKeys> apiKeys() {
        return List.copyOf(handlers.keySet());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    CompletableFuture<AbstractResponse> dispatch(RequestContext context, AbstractRequest request) {
        ApiHandler handler = handlers.get(request.apiKey());
        CompletableFuture<AbstractResponse> response;
        try {
            response = handler.handle(context, request);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        return response.exceptionally(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            log.warn("{} v{} from {} failed; answering with its error code", request.apiKey(), request.version(),
                    context.connectionId(), cause);
            return request.getErrorResponse(cause);
        });
    }
}
