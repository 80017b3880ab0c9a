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
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetFetch: committed offsets of one group (v1-7) or several (v8+). requireStable needs no
 * waiting here: there are no transactional offset commits to be pending.
 *
 * <p>ACLs as Kafka: DESCRIBE on the group (v1-7: the request is refused with
 * GROUP_AUTHORIZATION_FAILED; v8+: that group's entry is); topics one may not DESCRIBE are left out
 * of an all-topics answer and get TOPIC_AUTHORIZATION_FAILED when asked for by name or id.
 *
 * <p>Stateless; runs on the network thread, completes on the coordinator's.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {
    private final GroupCoordinator coordinator;
    private final MetadataCache cache;

    /** @param cache topic ids to names (v10), for the topic ACLs */
    public OffsetFetchHandler(GroupCoordinator coordinator, MetadataCache cache) {
        this.coordinator = coordinator;
        this.cache = cache;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FETCH;
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
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetFetchRequest request) {
        OffsetFetchRequestData req = request.data();
        if (request.version() < 8) {
            if (req.groupId() != null && !context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP,
                    req.groupId())) {
                return CompletableFuture.completedFuture(request.getErrorResponse(
                        Errors.GROUP_AUTHORIZATION_FAILED.exception()));
            }
            boolean allTopics = req.topics() == null;
            return coordinator.fetchOffsets(req, request.version()).thenApply(data -> {
                data.setTopics(new ArrayList<>(data.topics()));
                data.topics().removeIf(t -> allTopics && !describable(context, t.name()));
                data.topics().stream().filter(t -> !describable(context, t.name())).forEach(t -> t.partitions()
                        .forEach(p -> p.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setCommittedOffset(-1)
                                .setCommittedLeaderEpoch(-1).setMetadata("")));
                return new OffsetFetchResponse(data, request.version());
            });
        }
        List<OffsetFetchRequestGroup> allowed = new ArrayList<>();
        for (OffsetFetchRequestGroup g : req.groups()) {
            if (g.groupId() == null || context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId())) {
                allowed.add(g);
            }
        }
        CompletableFuture<OffsetFetchResponseData> fetched = allowed.isEmpty()
                ? CompletableFuture.completedFuture(new OffsetFetchResponseData())
                : coordinator.fetchOffsets(req.duplicate().setGroups(allowed), request.version());
        return fetched.thenApply(data -> {
            List<OffsetFetchResponseGroup> out = new ArrayList<>();
            int next = 0;
            for (int i = 0; i < req.groups().size(); i++) {
                OffsetFetchRequestGroup asked = req.groups().get(i);
                if (next < allowed.size() && allowed.get(next) == asked) {
                    out.add(filterTopics(context, data.groups().get(next++), asked.topics() == null));
                } else {
                    out.add(new OffsetFetchResponseGroup().setGroupId(asked.groupId())
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                }
            }
            return new OffsetFetchResponse(data.setGroups(out), request.version());
        });
    }

    private OffsetFetchResponseGroup filterTopics(RequestContext context, OffsetFetchResponseGroup group,
            boolean allTopics) {
        group.setTopics(new ArrayList<>(group.topics()));
        group.topics().removeIf(t -> allTopics && !describable(context, name(t.name(), t.topicId())));
        group.topics().stream().filter(t -> !describable(context, name(t.name(), t.topicId()))).forEach(t -> t
                .partitions().forEach(p -> p.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("")));
        return group;
    }

    /** The topic's name: as given, else (v10) its id's in the metadata cache, else null. */
    private String name(String name, Uuid id) {
        if (name != null && !name.isEmpty()) {
            return name;
        }
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return null;
        }
        TopicInfo t = cache.view().topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
        return t == null ? null : t.name();
    }

    /** An unknown topic (null name) is left to the coordinator's own answer. */
    private static boolean describable(RequestContext context, String topic) {
        return topic == null || context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
    }
}
