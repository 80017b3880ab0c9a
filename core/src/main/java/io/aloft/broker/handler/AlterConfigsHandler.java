package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.config.ConfigResources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;

/**
 * AlterConfigs (the legacy, whole-set form): the given configs replace all of a topic's overrides,
 * or all dynamic values of a broker (or of the cluster default).
 */
public final class AlterConfigsHandler implements ApiHandler<AlterConfigsRequest> {
    private final ConfigResources configs;

    public AlterConfigsHandler(ConfigResources configs) {
        this.configs = configs;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_CONFIGS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AlterConfigsRequest request) {
        List<CompletableFuture<AlterConfigsResourceResponse>> results = new ArrayList<>();
        for (AlterConfigsResource r : request.data().resources()) {
            AlterConfigsResourceResponse response = new AlterConfigsResourceResponse()
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName());
            Errors refused = ConfigAcls.check(context, AclOperation.ALTER_CONFIGS, r.resourceType(),
                    r.resourceName());
            if (refused != Errors.NONE) {
                results.add(CompletableFuture.completedFuture(response.setErrorCode(refused.code())
                        .setErrorMessage(refused.message())));
                continue;
            }
            Map<String, String> set = new HashMap<>();
            for (AlterableConfig c : r.configs()) {
                set.put(c.name(), c.value());
            }
            ConfigResource.Type type = ConfigResource.Type.forId(r.resourceType());
            List<String> delete = new ArrayList<>();
            try {
                configs.overrides(type, r.resourceName()).keySet().stream().filter(k -> !set.containsKey(k))
                        .forEach(delete::add);
            } catch (RuntimeException e) {
                results.add(CompletableFuture.completedFuture(response.setErrorCode(Errors.forException(e).code())
                        .setErrorMessage(e.getMessage())));
                continue;
            }
            results.add(configs.alter(type, r.resourceName(), set, delete, request.data().validateOnly())
                    .handle((v, e) -> e == null ? response.setErrorCode(Errors.NONE.code()).setErrorMessage(null)
                            : response.setErrorCode(ControllerErrors.toKafka(e).code())
                                    .setErrorMessage(ControllerErrors.message(e))));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v ->
                new AlterConfigsResponse(new AlterConfigsResponseData().setThrottleTimeMs(0)
                        .setResponses(results.stream().map(CompletableFuture::join).toList())));
    }
}
