package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.config.ConfigResources;
import io.aloft.config.ConfigKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs for topics (overrides over broker defaults), this broker (static, read-only,
 * but for the dynamic keys), with each key's type and, when asked, its documentation as declared,
 * and this broker's loggers with their levels ({@link io.aloft.broker.config.BrokerLoggers}).
 */
public final class DescribeConfigsHandler implements ApiHandler<DescribeConfigsRequest> {
    private final ConfigResources configs;

    public DescribeConfigsHandler(ConfigResources configs) {
        this.configs = configs;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CONFIGS;
    }

    @Override
    public short minVersion() {
        return 1; // the oldest Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeConfigsRequest request) {
        List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsResource r : request.data().resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult().setResourceType(r.resourceType())
                    .setResourceName(r.resourceName());
            Errors refused = ConfigAcls.check(context, AclOperation.DESCRIBE_CONFIGS, r.resourceType(),
                    r.resourceName());
            if (refused != Errors.NONE) {
                results.add(result.setErrorCode(refused.code()).setErrorMessage(refused.message())
                        .setConfigs(List.of()));
                continue;
            }
            try {
                List<DescribeConfigsResourceResult> entries = new ArrayList<>();
                ConfigResource.Type type = ConfigResource.Type.forId(r.resourceType());
                for (ConfigResources.Entry e : configs.describe(type, r.resourceName(), r.configurationKeys())) {
                    DescribeConfigsResourceResult entry = new DescribeConfigsResourceResult().setName(e.name())
                            .setValue(e.value()).setReadOnly(e.readOnly()).setConfigSource(e.source())
                            .setIsSensitive(e.value() == null).setSynonyms(List.of())
                            .setConfigType(configType(e.key()));
                    // Kafka leaves a logger's documentation at the field's default, the empty string.
                    if (type != ConfigResource.Type.BROKER_LOGGER) {
                        entry.setDocumentation(request.data().includeDocumentation() && e.key() != null
                                ? e.key().doc() : null);
                    }
                    entries.add(entry);
                }
                result.setErrorCode(Errors.NONE.code()).setConfigs(entries);
            } catch (RuntimeException e) {
                Errors code = Errors.forException(e);
                result.setErrorCode(code.code()).setErrorMessage(e.getMessage()).setConfigs(List.of());
            }
            results.add(result);
        }
        return CompletableFuture.completedFuture(new DescribeConfigsResponse(new DescribeConfigsResponseData()
                .setThrottleTimeMs(0).setResults(results)));
    }

    /** Kafka's type of a key as declared (a path or URL is a string to Kafka); unknown for an undeclared key. */
    static byte configType(ConfigKey<?> key) {
        if (key == null) {
            return ConfigType.UNKNOWN.id();
        }
        return (switch (key.type()) {
            case BOOLEAN -> ConfigType.BOOLEAN;
            case INT -> ConfigType.INT;
            case LONG -> ConfigType.LONG;
            case DOUBLE -> ConfigType.DOUBLE;
            case LIST -> ConfigType.LIST;
            case STRING, PATH, URL -> ConfigType.STRING;
        }).id();
    }
}
