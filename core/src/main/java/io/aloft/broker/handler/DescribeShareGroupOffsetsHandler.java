package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.ShareGroupDirectory.ShareGroupSummary;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeShareGroupOffsets (KIP-932; v1 adds the lag of KIP-1226): each share partition's start
 * offset from its durable state summary, for the groups this broker coordinates. DESCRIBE on the
 * group, else the group is refused; DESCRIBE on a topic, else its partitions are (and, when every
 * topic is asked for, it is left out). A partition without state answers start offset -1, also in a
 * group that does not exist (no error, as Kafka 4.3.1 answers). Stateless;
 * continuations run on the threads completing the directory's and the persister's futures.
 */
public final class DescribeShareGroupOffsetsHandler implements ApiHandler<DescribeShareGroupOffsetsRequest> {

    /** A partition's high watermark, or -1 when this broker does not know it (the lag is then -1). */
    @FunctionalInterface
    public interface HighWatermarks {
        long highWatermark(TopicPartition tp);
    }

    private final ShareGroupDirectory groups;
    private final ShareStatePersister persister;
    private final ShareOffsetsTopics topics;
    private final HighWatermarks highWatermarks;

    public DescribeShareGroupOffsetsHandler(ShareGroupDirectory groups, ShareStatePersister persister,
            MetadataCache cache, HighWatermarks highWatermarks) {
        this.groups = groups;
        this.persister = persister;
        this.topics = new ShareOffsetsTopics(cache);
        this.highWatermarks = highWatermarks;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS;
    }

    /** Pinned to what Kafka 4.3 serves, not taken from kafka-clients. */
    @Override
    public short maxVersion() {
        return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context,
            DescribeShareGroupOffsetsRequest request) {
        List<CompletableFuture<DescribeShareGroupOffsetsResponseGroup>> results = new ArrayList<>();
        for (DescribeShareGroupOffsetsRequestGroup g : request.data().groups()) {
            results.add(describeGroup(context, request.version(), g));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v ->
                new DescribeShareGroupOffsetsResponse(new DescribeShareGroupOffsetsResponseData()
                        .setGroups(results.stream().map(CompletableFuture::join).toList())));
    }

    private CompletableFuture<DescribeShareGroupOffsetsResponseGroup> describeGroup(RequestContext context,
            short version, DescribeShareGroupOffsetsRequestGroup g) {
        DescribeShareGroupOffsetsResponseGroup out = new DescribeShareGroupOffsetsResponseGroup()
                .setGroupId(g.groupId());
        if (!context.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId())) {
            return CompletableFuture.completedFuture(groupError(out, Errors.GROUP_AUTHORIZATION_FAILED, null));
        }
        // As Kafka 4.3.1: a group that does not exist (or is not a share group) is no error, it
        // just has no state: the named partitions answer start offset -1, "every topic" none.
        return groups.describe(g.groupId()).exceptionally(e -> {
            if (ControllerErrors.toKafka(e) == Errors.GROUP_ID_NOT_FOUND) {
                return Optional.empty();
            }
            throw e instanceof CompletionException ce ? ce : new CompletionException(e);
        }).thenCompose(found -> describeTopics(context, version, found.orElse(new ShareGroupSummary(g.groupId(),
                "Dead", 0, 0, Set.of(), Map.of())), g.topics()).thenApply(out::setTopics))
                .exceptionally(e -> groupError(out, ControllerErrors.toKafka(e), ControllerErrors.message(e)));
    }

    private static DescribeShareGroupOffsetsResponseGroup groupError(DescribeShareGroupOffsetsResponseGroup out,
            Errors error, String message) {
        return out.setErrorCode(error.code()).setErrorMessage(message == null ? error.message() : message)
                .setTopics(List.of());
    }

    /** The asked topics (null: every topic with state) with their partitions. */
    private CompletableFuture<List<DescribeShareGroupOffsetsResponseTopic>> describeTopics(RequestContext context,
            short version, ShareGroupSummary group, List<DescribeShareGroupOffsetsRequestTopic> asked) {
        Map<String, List<Integer>> wanted = new LinkedHashMap<>();
        if (asked == null) {
            group.initializedPartitions().forEach((id, parts) -> {
                ShareOffsetsTopics.Topic t = topics.byId(id);
                if (t != null && context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name())) {
                    wanted.put(t.name(), List.copyOf(new TreeSet<>(parts)));
                }
            });
        } else {
            asked.forEach(t -> wanted.put(t.topicName(), t.partitions()));
        }
        List<CompletableFuture<DescribeShareGroupOffsetsResponseTopic>> out = new ArrayList<>();
        wanted.forEach((name, parts) -> out.add(describeTopic(context, version, group, name, parts)));
        return CompletableFuture.allOf(out.toArray(CompletableFuture[]::new)).thenApply(v ->
                out.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<DescribeShareGroupOffsetsResponseTopic> describeTopic(RequestContext context,
            short version, ShareGroupSummary group, String name, List<Integer> partitions) {
        ShareOffsetsTopics.Topic topic = topics.byName(name);
        DescribeShareGroupOffsetsResponseTopic out = new DescribeShareGroupOffsetsResponseTopic().setTopicName(name);
        if (!context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
            return CompletableFuture.completedFuture(out.setPartitions(partitions.stream().map(p ->
                    partitionError(p, Errors.TOPIC_AUTHORIZATION_FAILED)).toList()));
        }
        if (topic == null) {
            // Kafka 4.3.1 answers a topic it does not know as one without state: no error, offset -1.
            return CompletableFuture.completedFuture(out.setPartitions(partitions.stream().map(DescribeShareGroupOffsetsHandler::noState)
                    .toList()));
        }
        out.setTopicId(topic.id());
        Set<Integer> initialized = group.initializedPartitions().getOrDefault(topic.id(), Set.of());
        List<CompletableFuture<DescribeShareGroupOffsetsResponsePartition>> parts = new ArrayList<>();
        for (int p : partitions) {
            if (!topic.has(p)) {
                parts.add(CompletableFuture.completedFuture(partitionError(p, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
            } else if (!initialized.contains(p)) {
                parts.add(CompletableFuture.completedFuture(noState(p)));
            } else {
                parts.add(persister.readSummary(new SharePartitionKey(group.groupId(), topic.id(), p))
                        .thenApply(s -> describe(version, new TopicPartition(name, p), s))
                        .exceptionally(e -> partitionError(p, ControllerErrors.toKafka(e))));
            }
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v ->
                out.setPartitions(parts.stream().map(CompletableFuture::join).toList()));
    }

    private DescribeShareGroupOffsetsResponsePartition describe(short version, TopicPartition tp,
            Optional<ShareStateSummary> summary) {
        if (summary.isEmpty()) {
            return noState(tp.partition());
        }
        ShareStateSummary s = summary.get();
        DescribeShareGroupOffsetsResponsePartition out = new DescribeShareGroupOffsetsResponsePartition()
                .setPartitionIndex(tp.partition()).setStartOffset(s.startOffset()).setLeaderEpoch(s.leaderEpoch());
        if (version >= 1) {
            out.setLag(lag(tp, s));
        }
        return out;
    }

    /**
     * KIP-1226's lag: records from the start offset to the high watermark not yet acknowledged or
     * archived; -1 when the start offset, the count or the high watermark is not known.
     */
    private long lag(TopicPartition tp, ShareStateSummary s) {
        if (s.startOffset() < 0 || s.deliveryCompleteCount() < 0) {
            return -1;
        }
        long hw = highWatermarks.highWatermark(tp);
        // A start offset beyond the high watermark (set so by AlterShareGroupOffsets) has no lag
        // to tell, as in Kafka 4.3.1.
        return hw < 0 || s.startOffset() > hw ? -1 : Math.max(0, hw - s.startOffset() - s.deliveryCompleteCount());
    }

    private static DescribeShareGroupOffsetsResponsePartition noState(int partition) {
        return new DescribeShareGroupOffsetsResponsePartition().setPartitionIndex(partition).setStartOffset(-1)
                .setLeaderEpoch(-1);
    }

    private static DescribeShareGroupOffsetsResponsePartition partitionError(int partition, Errors error) {
        return noState(partition).setErrorCode(error.code()).setErrorMessage(error.message());
    }
}
