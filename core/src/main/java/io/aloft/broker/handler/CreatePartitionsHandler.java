package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.resource.ResourceType;

/** CreatePartitions: grows topics (never shrinks); the controller places the new partitions. */
public final class CreatePartitionsHandler implements ApiHandler<CreatePartitionsRequest> {
    private final MetadataCache cache;
    private final TopicManager topics;

    public CreatePartitionsHandler(MetadataCache cache, TopicManager topics) {
        this.cache = cache;
        this.topics = topics;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_PARTITIONS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, CreatePartitionsRequest request) {
        List<CompletableFuture<CreatePartitionsTopicResult>> results = new ArrayList<>();
        for (CreatePartitionsTopic t : request.data().topics()) {
            // As Kafka's controller: ALTER on the topic, checked before whether it exists.
            results.add(context.authorized(AclOperation.ALTER, ResourceType.TOPIC, t.name())
                    ? growOne(t, request.data().validateOnly())
                    : done(t.name(), Errors.TOPIC_AUTHORIZATION_FAILED, null));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<CreatePartitionsTopicResult> out = new ArrayList<>();
            results.forEach(r -> out.add(r.join()));
            return new CreatePartitionsResponse(new CreatePartitionsResponseData().setThrottleTimeMs(0)
                    .setResults(out));
        });
    }

    private CompletableFuture<CreatePartitionsTopicResult> growOne(CreatePartitionsTopic t, boolean validateOnly) {
        TopicInfo topic = cache.view().topic(t.name());
        if (topic == null) {
            return done(t.name(), Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic " + t.name() + " does not exist");
        }
        if (t.assignments() != null && !t.assignments().isEmpty()) {
            return done(t.name(), Errors.INVALID_REPLICA_ASSIGNMENT,
                    "manual replica assignment is not supported: partitions are placed by the controller");
        }
        int current = topic.partitions().size();
        if (t.count() <= current) {
            return done(t.name(), Errors.INVALID_PARTITIONS, "topic " + t.name() + " has " + current
                    + " partitions; the new count " + t.count() + " must be larger");
        }
        if (t.count() > 100_000) {
            return done(t.name(), Errors.INVALID_PARTITIONS, "at most 100000 partitions per topic");
        }
        if (validateOnly) {
            return done(t.name(), Errors.NONE, null);
        }
        return topics.grow(topic, t.count()).handle((grown, error) -> {
            if (error == null) {
                return new CreatePartitionsTopicResult().setName(t.name()).setErrorCode(Errors.NONE.code());
            }
            Errors code = ControllerErrors.toKafka(error);
            return new CreatePartitionsTopicResult().setName(t.name())
                    .setErrorCode((code == Errors.INVALID_REQUEST ? Errors.INVALID_PARTITIONS : code).code())
                    .setErrorMessage(ControllerErrors.message(error));
        });
    }

    private static CompletableFuture<CreatePartitionsTopicResult> done(String name, Errors error, String message) {
        return CompletableFuture.completedFuture(new CreatePartitionsTopicResult().setName(name)
                .setErrorCode(error.code()).setErrorMessage(message));
    }
}
