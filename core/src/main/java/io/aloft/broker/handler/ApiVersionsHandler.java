package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;

/**
 * ApiVersions: exactly the APIs and version ranges the dispatcher serves, and from v3 the features
 * this broker honours ({@link KafkaFeatures}). Stateless; runs on the network thread.
 */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {
    private final Supplier<ApiVersionCollection> served;
    private final KafkaFeatures features;

    /**
     * @param served the API keys and version ranges of the dispatcher this handler is registered
     *     with (asked per request: the dispatcher is built after its handlers)
     */
    public ApiVersionsHandler(Supplier<ApiVersionCollection> served) {
        this(served, KafkaFeatures.NONE);
    }

    /** @param features the features reported from v3 */
    public ApiVersionsHandler(Supplier<ApiVersionCollection> served, KafkaFeatures features) {
        this.served = served;
        this.features = features;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.API_VERSIONS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ApiVersionsRequest request) {
        ApiVersionsResponseData data = new ApiVersionsResponseData().setThrottleTimeMs(0);
        if (!request.isValid()) {
            // v3+: client software name and version must be non-empty and of legal characters.
            data.setErrorCode(Errors.INVALID_REQUEST.code());
        } else {
            data.setErrorCode(Errors.NONE.code()).setApiKeys(served.get());
            features.fill(data, request.version());
        }
        return CompletableFuture.completedFuture(new ApiVersionsResponse(data));
    }
}
