package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareStatePersister;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopicCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AlterShareGroupOffsets (KIP-932, kafka-share-groups.sh --reset-offsets): sets share partitions'
 * start offsets while the group has no members. Each partition's state is initialized anew at the
 * given offset with a state epoch one above the current one (so a share partition still holding the
 * old state is fenced on its next write), then the group coordinator records the partitions as
 * initialized (creating the empty share group if there is none). READ on the group, else the request
 * is refused; READ on a topic, else its partitions are. Stateless; continuations run on the threads
 * completing the directory's and the persister's futures.
 */
public final class AlterShareGroupOffsetsHandler implements ApiHandler<AlterShareGroupOffsetsRequest> {
    private final ShareGroupDirectory groups;
    private final ShareStatePersister persister;
    private final ShareOffsetsTopics topics;

    public AlterShareGroupOffsetsHandler(ShareGroupDirectory groups, ShareStatePersister persister,
            MetadataCache cache) {
        this.groups = groups;
        this.persister = persister;
        this.topics = new ShareOffsetsTopics(cache);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_SHARE_GROUP_OFFSETS;
    }

    /** Pinned to what Kafka 4.3 serves. */
    @Override
    public short maxVersion() {
        return 0;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AlterShareGroupOffsetsRequest request) {
        String groupId = request.data().groupId();
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, groupId)) {
            return CompletableFuture.completedFuture(error(Errors.GROUP_AUTHORIZATION_FAILED, null));
        }
        return groups.describe(groupId).thenCompose(found -> {
            if (found.isPresent() && found.get().memberCount() > 0) {
                return CompletableFuture.completedFuture(error(Errors.NON_EMPTY_GROUP,
                        "Share group " + groupId + " is not empty."));
            }
            return alter(context, groupId, request.data().topics());
        }).exceptionally(e -> error(ControllerErrors.toKafka(e), ControllerErrors.message(e)));
    }

    private CompletableFuture<AbstractResponse> alter(RequestContext context, String groupId,
            Iterable<AlterShareGroupOffsetsRequestTopic> asked) {
        AlterShareGroupOffsetsResponseTopicCollection out = new AlterShareGroupOffsetsResponseTopicCollection();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        Map<Uuid, Set<Integer>> initialized = new HashMap<>();
        for (AlterShareGroupOffsetsRequestTopic t : asked) {
            AlterShareGroupOffsetsResponseTopic topicOut = new AlterShareGroupOffsetsResponseTopic()
                    .setTopicName(t.topicName());
            out.add(topicOut);
            ShareOffsetsTopics.Topic topic = topics.byName(t.topicName());
            Errors refused = ShareOffsetsTopics.changeRefusal(context, t.topicName(), topic);
            if (topic != null) {
                topicOut.setTopicId(topic.id());
            }
            for (AlterShareGroupOffsetsRequestPartition p : t.partitions()) {
                AlterShareGroupOffsetsResponsePartition partOut = new AlterShareGroupOffsetsResponsePartition()
                        .setPartitionIndex(p.partitionIndex());
                topicOut.partitions().add(partOut);
                // Any start offset is taken, as Kafka 4.3.1 takes it (beyond the end, or negative).
                Errors error = refused != Errors.NONE ? refused
                        : !topic.has(p.partitionIndex()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE;
                if (error != Errors.NONE) {
                    partOut.setErrorCode(error.code()).setErrorMessage(error.message());
                    continue;
                }
                SharePartitionKey key = new SharePartitionKey(groupId, topic.id(), p.partitionIndex());
                pending.add(initialize(key, p.startOffset()).handle((v, e) -> {
                    if (e != null) {
                        Errors failed = ControllerErrors.toKafka(e);
                        partOut.setErrorCode(failed.code()).setErrorMessage(ControllerErrors.message(e));
                    } else {
                        synchronized (initialized) {
                            initialized.computeIfAbsent(key.topicId(), id -> new HashSet<>()).add(key.partition());
                        }
                    }
                    return null;
                }));
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            if (initialized.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return groups.updateInitialized(groupId, initialized, Set.of());
        }).thenApply(v -> new AlterShareGroupOffsetsResponse(new AlterShareGroupOffsetsResponseData()
                .setResponses(out)));
    }

    /** Initializes the state at {@code startOffset} with the next state epoch (0 for a partition without state). */
    private CompletableFuture<Void> initialize(SharePartitionKey key, long startOffset) {
        return persister.readSummary(key).thenCompose(summary -> persister.initialize(key,
                summary.map(s -> s.stateEpoch() + 1).orElse(0), startOffset));
    }

    private static AlterShareGroupOffsetsResponse error(Errors error, String message) {
        return new AlterShareGroupOffsetsResponse(new AlterShareGroupOffsetsResponseData().setErrorCode(error.code())
                .setErrorMessage(message == null ? error.message() : message));
    }
}
