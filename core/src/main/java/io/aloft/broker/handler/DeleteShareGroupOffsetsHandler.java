package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.ShareGroupDirectory.ShareGroupSummary;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareStatePersister;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteShareGroupOffsets (KIP-932, kafka-share-groups.sh --delete-offsets): forgets the state of a
 * share group's partitions of the given topics while the group has no members, then has the group
 * coordinator forget them as initialized. DELETE on the group, else the request is refused; READ on
 * a topic, else that topic is. Stateless; continuations run on the threads completing the
 * directory's and the persister's futures.
 */
public final class DeleteShareGroupOffsetsHandler implements ApiHandler<DeleteShareGroupOffsetsRequest> {
    private final ShareGroupDirectory groups;
    private final ShareStatePersister persister;
    private final ShareOffsetsTopics topics;

    public DeleteShareGroupOffsetsHandler(ShareGroupDirectory groups, ShareStatePersister persister,
            MetadataCache cache) {
        this.groups = groups;
        this.persister = persister;
        this.topics = new ShareOffsetsTopics(cache);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_SHARE_GROUP_OFFSETS;
    }

    /** Pinned to what Kafka 4.3 serves. */
    @Override
    public short maxVersion() {
        return 0;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteShareGroupOffsetsRequest request) {
        String groupId = request.data().groupId();
        if (!context.authorized(AclOperation.DELETE, ResourceType.GROUP, groupId)) {
            return CompletableFuture.completedFuture(error(Errors.GROUP_AUTHORIZATION_FAILED, null));
        }
        return groups.describe(groupId).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.completedFuture(error(Errors.GROUP_ID_NOT_FOUND,
                        "Group " + groupId + " not found."));
            }
            if (found.get().memberCount() > 0) {
                return CompletableFuture.completedFuture(error(Errors.NON_EMPTY_GROUP,
                        "Share group " + groupId + " is not empty."));
            }
            return delete(context, found.get(), request.data().topics());
        }).exceptionally(e -> error(ControllerErrors.toKafka(e), ControllerErrors.message(e)));
    }

    private CompletableFuture<AbstractResponse> delete(RequestContext context, ShareGroupSummary group,
            List<DeleteShareGroupOffsetsRequestTopic> asked) {
        List<DeleteShareGroupOffsetsResponseTopic> out = new ArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        Set<Uuid> removed = new HashSet<>();
        for (DeleteShareGroupOffsetsRequestTopic t : asked) {
            DeleteShareGroupOffsetsResponseTopic topicOut = new DeleteShareGroupOffsetsResponseTopic()
                    .setTopicName(t.topicName());
            out.add(topicOut);
            ShareOffsetsTopics.Topic topic = topics.byName(t.topicName());
            Errors refused = ShareOffsetsTopics.changeRefusal(context, t.topicName(), topic);
            if (refused != Errors.NONE) {
                topicOut.setErrorCode(refused.code()).setErrorMessage(refused.message());
                continue;
            }
            topicOut.setTopicId(topic.id());
            List<CompletableFuture<Void>> deletes = new ArrayList<>();
            for (int p : group.initializedPartitions().getOrDefault(topic.id(), Set.of())) {
                deletes.add(persister.delete(new SharePartitionKey(group.groupId(), topic.id(), p)));
            }
            pending.add(CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).handle((v, e) -> {
                if (e != null) {
                    Errors failed = ControllerErrors.toKafka(e);
                    topicOut.setErrorCode(failed.code()).setErrorMessage(ControllerErrors.message(e));
                } else {
                    synchronized (removed) {
                        removed.add(topic.id());
                    }
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenCompose(v -> removed.isEmpty()
                ? CompletableFuture.<Void>completedFuture(null)
                : groups.updateInitialized(group.groupId(), Map.of(), removed))
                .thenApply(v -> new DeleteShareGroupOffsetsResponse(new DeleteShareGroupOffsetsResponseData()
                        .setResponses(out)));
    }

    private static DeleteShareGroupOffsetsResponse error(Errors error, String message) {
        return new DeleteShareGroupOffsetsResponse(new DeleteShareGroupOffsetsResponseData()
                .setErrorCode(error.code()).setErrorMessage(message == null ? error.message() : message));
    }
}
