package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.config.BrokerLoggers;
import io.aloft.broker.config.ConfigResources;
import io.aloft.broker.config.GroupConfigs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * IncrementalAlterConfigs: SET and DELETE of topic configs, of dynamic broker configs, of group
 * configs ({@link GroupConfigs}) and of this broker's log levels (BROKER_LOGGER, {@link BrokerLoggers}).
 * APPEND and SUBTRACT apply to list configs only, and none of the configs that can change is a list: they are refused.
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler<IncrementalAlterConfigsRequest> {
    private final ConfigResources configs;

    public IncrementalAlterConfigsHandler(ConfigResources configs) {
        this.configs = configs;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INCREMENTAL_ALTER_CONFIGS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, IncrementalAlterConfigsRequest request) {
        List<CompletableFuture<AlterConfigsResourceResponse>> results = new ArrayList<>();
        for (AlterConfigsResource r : request.data().resources()) {
            AlterConfigsResourceResponse response = new AlterConfigsResourceResponse()
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName());
            Errors denied = ConfigAcls.check(context, AclOperation.ALTER_CONFIGS, r.resourceType(),
                    r.resourceName());
            if (denied != Errors.NONE) {
                results.add(CompletableFuture.completedFuture(response.setErrorCode(denied.code())
                        .setErrorMessage(denied.message())));
                continue;
            }
            if (r.resourceType() == ConfigResource.Type.BROKER_LOGGER.id()) {
                results.add(CompletableFuture.completedFuture(alterLoggers(r, request.data().validateOnly(),
                        response)));
                continue;
            }
            if (r.resourceType() == ConfigResource.Type.GROUP.id()) {
                results.add(alterGroup(r, request.data().validateOnly(), response));
                continue;
            }
            Map<String, String> set = new HashMap<>();
            List<String> delete = new ArrayList<>();
            String refused = null;
            for (AlterableConfig c : r.configs()) {
                AlterConfigOp.OpType op = AlterConfigOp.OpType.forId(c.configOperation());
                if (op == AlterConfigOp.OpType.SET) {
                    set.put(c.name(), c.value());
                } else if (op == AlterConfigOp.OpType.DELETE) {
                    delete.add(c.name());
                } else {
                    refused = op + " of " + c.name() + ": only SET and DELETE are supported (no list configs)";
                }
            }
            if (refused != null) {
                results.add(CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_CONFIG.code())
                        .setErrorMessage(refused)));
                continue;
            }
            results.add(configs.alter(ConfigResource.Type.forId(r.resourceType()), r.resourceName(), set, delete,
                    request.data().validateOnly()).handle((v, e) -> e == null
                            ? response.setErrorCode(Errors.NONE.code()).setErrorMessage(null) // null as Kafka
                            : response.setErrorCode(ControllerErrors.toKafka(e).code())
                                    .setErrorMessage(ControllerErrors.message(e))));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v ->
                new IncrementalAlterConfigsResponse(new IncrementalAlterConfigsResponseData().setThrottleTimeMs(0)
                        .setResponses(results.stream().map(CompletableFuture::join).toList())));
    }

    /** Group configs: each operation checked as Kafka does (its own messages), then all applied. */
    private CompletableFuture<AlterConfigsResourceResponse> alterGroup(AlterConfigsResource r, boolean validateOnly,
            AlterConfigsResourceResponse response) {
        List<GroupConfigs.Change> changes = new ArrayList<>();
        for (AlterableConfig c : r.configs()) {
            changes.add(new GroupConfigs.Change(c.name(), AlterConfigOp.OpType.forId(c.configOperation()), c.value()));
        }
        return configs.groups().alter(r.resourceName(), changes, validateOnly).handle((v, e) -> e == null
                ? response.setErrorCode(Errors.NONE.code()).setErrorMessage(null)
                : response.setErrorCode(ControllerErrors.toKafka(e).code())
                        .setErrorMessage(ControllerErrors.message(e)));
    }

    /** Log levels, changed in this process at once: each operation in order, SET and DELETE only. */
    private AlterConfigsResourceResponse alterLoggers(AlterConfigsResource r, boolean validateOnly,
            AlterConfigsResourceResponse response) {
        List<BrokerLoggers.Change> changes = new ArrayList<>();
        for (AlterableConfig c : r.configs()) {
            changes.add(new BrokerLoggers.Change(c.name(), AlterConfigOp.OpType.forId(c.configOperation()),
                    c.value()));
        }
        try {
            configs.loggers().alter(r.resourceName(), changes, validateOnly);
            return response.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
        } catch (RuntimeException e) {
            return response.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
    }
}
