package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateTopics. A replication factor is accepted as given (-1 or any positive value): partition
 * data lives in shared object storage, so there are no broker-side replicas to place and each
 * partition reports one replica. Manual replica assignments are refused: the controller places
 * partitions itself. A topic the controller has not created within the request's {@code timeoutMs}
 * (no quorum, say) answers REQUEST_TIMED_OUT, as Kafka's does; the controller may still create it
 * later (as with Kafka, a timeout does not say the topic was not created).
 */
public final class CreateTopicsHandler implements ApiHandler<CreateTopicsRequest> {
    private final TopicManager topics;

    public CreateTopicsHandler(TopicManager topics) {
        this.topics = topics;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_TOPICS;
    }

    @Override
    public short minVersion() {
        return 2; // what Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, CreateTopicsRequest request) {
        boolean validateOnly = request.data().validateOnly();
        List<CompletableFuture<CreatableTopicResult>> results = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        for (CreatableTopic t : request.data().topics()) {
            if (!seen.add(t.name())) {
                duplicated.add(t.name());
            }
        }
        int timeoutMs = request.data().timeoutMs();
        // As Kafka: CREATE on the cluster, or on each topic (TOPIC_AUTHORIZATION_FAILED otherwise).
        boolean mayCreateAny = context.authorizedOnCluster(AclOperation.CREATE);
        for (CreatableTopic t : request.data().topics()) {
            if (duplicated.contains(t.name())) {
                results.add(CompletableFuture.completedFuture(failed(t.name(), Errors.INVALID_REQUEST,
                        "topic " + t.name() + " appears more than once in the request")));
            } else if (!mayCreateAny && !context.authorized(AclOperation.CREATE, ResourceType.TOPIC, t.name())) {
                results.add(CompletableFuture.completedFuture(failed(t.name(), Errors.TOPIC_AUTHORIZATION_FAILED,
                        "Authorization failed.")));
            } else {
                results.add(withinTimeout(t.name(), createOne(t, validateOnly), timeoutMs));
            }
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            CreatableTopicResultCollection out = new CreatableTopicResultCollection();
            results.forEach(r -> out.add(r.join()));
            return new CreateTopicsResponse(new CreateTopicsResponseData().setThrottleTimeMs(0).setTopics(out));
        });
    }

    private CompletableFuture<CreatableTopicResult> createOne(CreatableTopic t, boolean validateOnly) {
        if (!t.assignments().isEmpty()) {
            return CompletableFuture.completedFuture(failed(t.name(), Errors.INVALID_REPLICA_ASSIGNMENT,
                    "manual replica assignment is not supported: partitions are placed by the controller"));
        }
        if (t.replicationFactor() == 0 || t.replicationFactor() < -1) {
            return CompletableFuture.completedFuture(failed(t.name(), Errors.INVALID_REPLICATION_FACTOR,
                    "replication factor must be -1 or positive, not " + t.replicationFactor()));
        }
        Map<String, String> configs = new HashMap<>();
        for (CreatableTopicConfig c : t.configs()) {
            if (c.value() != null) {
                configs.put(c.name(), c.value());
            }
        }
        int partitions;
        try {
            partitions = topics.validate(t.name(), t.numPartitions(), configs);
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(failed(t.name(), Errors.forException(e), e.getMessage()));
        }
        if (validateOnly) {
            return CompletableFuture.completedFuture(new CreatableTopicResult().setName(t.name())
                    .setErrorCode(Errors.NONE.code()).setNumPartitions(partitions).setReplicationFactor((short) 1)
                    .setConfigs(List.of()));
        }
        return topics.create(t.name(), partitions, configs).handle((TopicInfo topic, Throwable error) -> {
            if (error != null) {
                Errors code = ControllerErrors.toKafka(error);
                return failed(t.name(), code, ControllerErrors.message(error));
            }
            return new CreatableTopicResult().setName(topic.name())
                    .setTopicId(new Uuid(topic.topicId().getMostSignificantBits(),
                            topic.topicId().getLeastSignificantBits()))
                    .setErrorCode(Errors.NONE.code())
                    .setNumPartitions(topic.partitions().size())
                    .setReplicationFactor((short) 1)
                    .setConfigs(List.of());
        });
    }

    /**
     * {@code result}, or REQUEST_TIMED_OUT once {@code timeoutMs} has passed without it (a timeout
     * of 0 or less sets no bound: the controller's request timeout applies).
     */
    private static CompletableFuture<CreatableTopicResult> withinTimeout(String name,
            CompletableFuture<CreatableTopicResult> result, int timeoutMs) {
        if (timeoutMs <= 0 || result.isDone()) {
            return result;
        }
        return result.completeOnTimeout(failed(name, Errors.REQUEST_TIMED_OUT, "the controller did not answer "
                + "within the request's timeoutMs=" + timeoutMs + "; topic " + name + " may still be created"),
                timeoutMs, TimeUnit.MILLISECONDS);
    }

    private static CreatableTopicResult failed(String name, Errors error, String message) {
        return new CreatableTopicResult().setName(name).setErrorCode(error.code()).setErrorMessage(message)
                .setNumPartitions(-1).setReplicationFactor((short) -1).setTopicId(Uuid.ZERO_UUID);
    }
}
