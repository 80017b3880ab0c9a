package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.resource.ResourceType;

/** DeleteTopics by name (all versions) or by topic id (v6+). */
public final class DeleteTopicsHandler implements ApiHandler<DeleteTopicsRequest> {
    private final MetadataCache cache;
    private final TopicManager topics;

    public DeleteTopicsHandler(MetadataCache cache, TopicManager topics) {
        this.cache = cache;
        this.topics = topics;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_TOPICS;
    }

    @Override
    public short minVersion() {
        return 1; // what Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteTopicsRequest request) {
        List<DeleteTopicState> wanted = new ArrayList<>(request.data().topics());
        for (String name : request.data().topicNames()) {
            wanted.add(new DeleteTopicState().setName(name));
        }
        List<CompletableFuture<DeletableTopicResult>> results = new ArrayList<>();
        MetadataCache.View view = cache.view();
        for (DeleteTopicState w : wanted) {
            // As Kafka's controller: a name one may not DESCRIBE is refused before looking it up; DELETE is
            // checked once the topic is found (by id, the name of a topic one may not describe stays hidden).
            if (w.name() != null && !context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, w.name())) {
                results.add(CompletableFuture.completedFuture(new DeletableTopicResult().setName(w.name())
                        .setTopicId(Uuid.ZERO_UUID).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                continue;
            }
            TopicInfo topic;
            if (w.name() != null) {
                topic = view.topic(w.name());
            } else {
                Uuid id = w.topicId();
                topic = view.topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
            }
            if (topic == null) {
                Errors code = w.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID;
                results.add(CompletableFuture.completedFuture(new DeletableTopicResult().setName(w.name())
                        .setTopicId(w.topicId()).setErrorCode(code.code()).setErrorMessage(code.message())));
                continue;
            }
            Uuid id = new Uuid(topic.topicId().getMostSignificantBits(), topic.topicId().getLeastSignificantBits());
            if (!context.authorized(AclOperation.DELETE, ResourceType.TOPIC, topic.name())) {
                boolean describable = context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name());
                results.add(CompletableFuture.completedFuture(new DeletableTopicResult()
                        .setName(describable ? topic.name() : null).setTopicId(id)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                continue;
            }
            if (org.apache.kafka.common.internals.Topic.isInternal(topic.name())) {
                // Deleting it would drop every group's committed offsets.
                results.add(CompletableFuture.completedFuture(new DeletableTopicResult().setName(topic.name())
                        .setTopicId(id).setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                        .setErrorMessage("internal topic " + topic.name() + " cannot be deleted")));
                continue;
            }
            results.add(topics.delete(topic).handle((v, error) -> {
                DeletableTopicResult r = new DeletableTopicResult().setName(topic.name()).setTopicId(id);
                if (error == null) {
                    return r.setErrorCode(Errors.NONE.code());
                }
                Errors code = ControllerErrors.toKafka(error);
                return r.setErrorCode(code.code()).setErrorMessage(ControllerErrors.message(error));
            }));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            DeletableTopicResultCollection out = new DeletableTopicResultCollection();
            results.forEach(r -> out.add(r.join()));
            return new DeleteTopicsResponse(new DeleteTopicsResponseData().setThrottleTimeMs(0).setResponses(out));
        });
    }
}
