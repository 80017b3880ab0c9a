package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetCommit: answered once the offsets are durable in {@code __consumer_offsets}. Topics are
 * named by id from v10, resolved through the metadata cache. As in Kafka, offsets for a topic that
 * does not exist are refused with UNKNOWN_TOPIC_OR_PARTITION and only the others go to the
 * coordinator (by id, an unknown topic gets UNKNOWN_TOPIC_ID from the coordinator).
 *
 * <p>Stateless; runs on the network thread, completes on the coordinator's.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequest> {
    /** The first version naming topics by id. */
    private static final short FIRST_BY_ID_VERSION = 10;

    private final GroupCoordinator coordinator;
    private final MetadataCache cache;

    public OffsetCommitHandler(GroupCoordinator coordinator, MetadataCache cache) {
        this.coordinator = coordinator;
        this.cache = cache;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    /**
     * Up to v10, as Kafka 4.x brokers serve; pinned rather than taken from kafka-clients, whose next
     * release may know versions the coordinator does not handle.
     */
    @Override
    public short maxVersion() {
        return 10;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetCommitRequest request) {
        OffsetCommitRequestData data = request.data();
        // As Kafka: READ on the group, else the whole request is refused; READ on each topic
        // (TOPIC_AUTHORIZATION_FAILED, checked before whether the topic exists).
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.GROUP_AUTHORIZATION_FAILED.exception()));
        }
        boolean byId = request.version() >= FIRST_BY_ID_VERSION;
        MetadataCache.View view = cache.view();
        List<OffsetCommitRequestTopic> known = new ArrayList<>();
        List<OffsetCommitRequestTopic> unknown = new ArrayList<>();
        List<OffsetCommitRequestTopic> refused = new ArrayList<>();
        for (OffsetCommitRequestTopic t : data.topics()) {
            TopicInfo topic = byId ? view.topic(new UUID(t.topicId().getMostSignificantBits(),
                    t.topicId().getLeastSignificantBits())) : view.topic(t.name());
            String name = byId ? (topic == null ? null : topic.name()) : t.name();
            if (name != null && !context.authorized(AclOperation.READ, ResourceType.TOPIC, name)) {
                refused.add(t);
            } else if (topic == null && !byId) {
                unknown.add(t);
            } else {
                known.add(t); // by id, an unknown one gets UNKNOWN_TOPIC_ID from the coordinator
            }
        }
        if (known.size() == data.topics().size()) {
            return coordinator.commitOffsets(data, request.version()).thenApply(OffsetCommitResponse::new);
        }
        CompletableFuture<OffsetCommitResponseData> committed = known.isEmpty()
                ? CompletableFuture.completedFuture(new OffsetCommitResponseData())
                : coordinator.commitOffsets(data.duplicate().setTopics(known), request.version());
        return committed.thenApply(response -> {
            refused.forEach(t -> response.topics().add(failed(t, Errors.TOPIC_AUTHORIZATION_FAILED)));
            unknown.forEach(t -> response.topics().add(failed(t, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
            return new OffsetCommitResponse(response);
        });
    }

    private static OffsetCommitResponseTopic failed(OffsetCommitRequestTopic t, Errors error) {
        List<OffsetCommitResponsePartition> partitions = new ArrayList<>();
        t.partitions().forEach(p -> partitions.add(new OffsetCommitResponsePartition()
                .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code())));
        return new OffsetCommitResponseTopic().setName(t.name()).setTopicId(t.topicId()).setPartitions(partitions);
    }
}
