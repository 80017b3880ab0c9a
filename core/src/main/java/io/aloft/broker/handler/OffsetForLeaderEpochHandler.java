package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.EpochEndOffset;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetForLeaderEpoch (KIP-101, KIP-320): where a leader epoch ends in a partition's log. A consumer
 * asks after the partition's leader epoch changed, with the epoch of the last record it consumed,
 * and finds the log truncated if the answer is below its position. The current epoch ends at the
 * high watermark, an older one where the next epoch the log holds starts; see
 * {@link io.aloft.broker.log.PartitionLog#endOffsetForEpoch}.
 *
 * <p>Per partition, as Kafka: FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH when the request's current
 * leader epoch is older or newer than the partition's, NOT_LEADER_OR_FOLLOWER when another broker
 * serves it, UNKNOWN_TOPIC_OR_PARTITION when there is no such partition. Followers' requests
 * (replica id set, v3+) are answered the same way: there are no followers, the leader answers.
 *
 * <p>Stateless; runs on the network thread and completes on the stream store's.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler<OffsetsForLeaderEpochRequest> {
    private final PartitionManager partitions;

    public OffsetForLeaderEpochHandler(PartitionManager partitions) {
        this.partitions = partitions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FOR_LEADER_EPOCH;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, OffsetsForLeaderEpochRequest request) {
        List<CompletableFuture<OffsetForLeaderTopicResult>> topics = new ArrayList<>();
        // As Kafka: a follower's request (replica id set) needs CLUSTER_ACTION, a client's DESCRIBE per topic.
        boolean follower = request.data().replicaId() >= 0;
        boolean clusterAction = follower && context.authorizedOnCluster(AclOperation.CLUSTER_ACTION);
        for (OffsetForLeaderTopic t : request.data().topics()) {
            List<CompletableFuture<OffsetForLeaderEpochResponseData.EpochEndOffset>> parts = new ArrayList<>();
            Errors refused = follower ? (clusterAction ? Errors.NONE : Errors.CLUSTER_AUTHORIZATION_FAILED)
                    : context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic()) ? Errors.NONE
                    : Errors.TOPIC_AUTHORIZATION_FAILED;
            for (OffsetForLeaderPartition p : t.partitions()) {
                parts.add(refused != Errors.NONE ? CompletableFuture.completedFuture(
                        new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(p.partition())
                                .setLeaderEpoch(EpochEndOffset.UNDEFINED.epoch())
                                .setEndOffset(EpochEndOffset.UNDEFINED.endOffset()).setErrorCode(refused.code()))
                        : answer(new TopicPartition(t.topic(), p.partition()), p));
            }
            topics.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v ->
                    new OffsetForLeaderTopicResult().setTopic(t.topic())
                            .setPartitions(parts.stream().map(CompletableFuture::join).toList())));
        }
        return CompletableFuture.allOf(topics.toArray(CompletableFuture[]::new)).thenApply(v -> {
            OffsetForLeaderTopicResultCollection out = new OffsetForLeaderTopicResultCollection();
            topics.forEach(t -> out.add(t.join()));
            return new OffsetsForLeaderEpochResponse(new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0)
                    .setTopics(out));
        });
    }

    private CompletableFuture<OffsetForLeaderEpochResponseData.EpochEndOffset> answer(TopicPartition tp,
            OffsetForLeaderPartition p) {
        OffsetForLeaderEpochResponseData.EpochEndOffset r = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(p.partition()).setLeaderEpoch(EpochEndOffset.UNDEFINED.epoch())
                .setEndOffset(EpochEndOffset.UNDEFINED.endOffset());
        return partitions.leaderLog(tp).thenApply(log -> {
            Errors epochError = FetchHandler.checkEpoch(p.currentLeaderEpoch(), log.leaderEpoch());
            if (epochError != Errors.NONE) {
                return r.setErrorCode(epochError.code());
            }
            EpochEndOffset end = log.endOffsetForEpoch(p.leaderEpoch());
            return r.setErrorCode(Errors.NONE.code()).setLeaderEpoch(end.epoch()).setEndOffset(end.endOffset());
        }).exceptionally(e -> r.setErrorCode(PartitionErrors.toKafka(e).code()));
    }
}
