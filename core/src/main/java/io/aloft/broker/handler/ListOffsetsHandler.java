package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.log.TimestampOffset;
import io.aloft.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets: earliest (-2), latest (-1), max timestamp (-3), and the first offset at or after a
 * timestamp (through the partition's time index). With isolation_level 1 (READ_COMMITTED) the log
 * ends at the last stable offset rather than the high watermark, as in Kafka: latest answers it,
 * and a record found by timestamp at or above it is not answered (no offset). The log is one log,
 * not Kafka's local segments plus a remote tier (KIP-405): earliest-local (-4) answers like earliest, and latest-tiered (-5)
 * and earliest-pending-upload (-6) get Kafka's answer for a topic without remote storage, no
 * offset (-1).
 *
 * <p>The leader epoch of the answer exists from v4 only; older versions leave it at its default
 * (an older client could not read it, and the response could not be encoded with it).
 *
 * <p>Stateless; runs on the network thread, completes on the stream store's.
 */
public final class ListOffsetsHandler implements ApiHandler<ListOffsetsRequest> {
    /** The first version whose partition answer carries a leader epoch. */
    static final short FIRST_LEADER_EPOCH_VERSION = 4;

    private final PartitionManager partitions;

    public ListOffsetsHandler(PartitionManager partitions) {
        this.partitions = partitions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_OFFSETS;
    }

    @Override
    public short minVersion() {
        return 1; // the oldest Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ListOffsetsRequest request) {
        List<CompletableFuture<ListOffsetsTopicResponse>> topics = new ArrayList<>();
        for (ListOffsetsTopic t : request.data().topics()) {
            List<CompletableFuture<ListOffsetsPartitionResponse>> parts = new ArrayList<>();
            boolean authorized = context.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name());
            for (ListOffsetsPartition p : t.partitions()) {
                parts.add(!authorized ? CompletableFuture.completedFuture(new ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()))
                        : answer(new TopicPartition(t.name(), p.partitionIndex()), p, request.version(),
                                request.data().isolationLevel() == IsolationLevel.READ_COMMITTED.id()));
            }
            topics.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v ->
                    new ListOffsetsTopicResponse().setName(t.name())
                            .setPartitions(parts.stream().map(CompletableFuture::join).toList())));
        }
        return CompletableFuture.allOf(topics.toArray(CompletableFuture[]::new)).thenApply(v ->
                new ListOffsetsResponse(new ListOffsetsResponseData().setThrottleTimeMs(0)
                        .setTopics(topics.stream().map(CompletableFuture::join).toList())));
    }

    private CompletableFuture<ListOffsetsPartitionResponse> answer(TopicPartition tp, ListOffsetsPartition p,
            short version, boolean committed) {
        ListOffsetsPartitionResponse r = new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
                .setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
        return find(tp, p, r, committed).thenApply(found -> version < FIRST_LEADER_EPOCH_VERSION
                ? found.setLeaderEpoch(-1) : found);
    }

    private CompletableFuture<ListOffsetsPartitionResponse> find(TopicPartition tp, ListOffsetsPartition p,
            ListOffsetsPartitionResponse r, boolean committed) {
        return partitions.leaderLog(tp).thenCompose(log -> {
            Errors epochError = FetchHandler.checkEpoch(p.currentLeaderEpoch(), log.leaderEpoch());
            if (epochError != Errors.NONE) {
                return CompletableFuture.completedFuture(r.setErrorCode(epochError.code()));
            }
            long ts = p.timestamp();
            if (ts == ListOffsetsRequest.EARLIEST_TIMESTAMP || ts == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
                return CompletableFuture.completedFuture(r.setErrorCode(Errors.NONE.code())
                        .setOffset(log.logStartOffset()).setLeaderEpoch(log.leaderEpoch()));
            }
            if (ts == ListOffsetsRequest.LATEST_TIMESTAMP) {
                return CompletableFuture.completedFuture(r.setErrorCode(Errors.NONE.code())
                        .setOffset(committed ? log.lastStableOffset() : log.highWatermark())
                        .setLeaderEpoch(log.leaderEpoch()));
            }
            if (ts == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP
                    || ts == ListOffsetsRequest.EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
                return CompletableFuture.completedFuture(r.setErrorCode(Errors.NONE.code()));
            }
            long end = committed ? log.lastStableOffset() : Long.MAX_VALUE; // the timestamp lookups stop at the HW
            if (ts == ListOffsetsRequest.MAX_TIMESTAMP) {
                return log.maxTimestamp().thenApply(found -> fill(r, found.filter(f -> f.offset() < end)));
            }
            if (ts < 0) {
                return CompletableFuture.completedFuture(r.setErrorCode(Errors.INVALID_REQUEST.code()));
            }
            return log.offsetForTimestamp(ts).thenApply(found -> fill(r, found.filter(f -> f.offset() < end)));
        }).exceptionally(e -> r.setErrorCode(PartitionErrors.toKafka(e).code()));
    }

    /** A found offset, or Kafka's "none" answer (-1/-1) when no record is that late. */
    private static ListOffsetsPartitionResponse fill(ListOffsetsPartitionResponse r, Optional<TimestampOffset> found) {
        r.setErrorCode(Errors.NONE.code());
        found.ifPresent(f -> r.setTimestamp(f.timestamp()).setOffset(f.offset()).setLeaderEpoch(f.leaderEpoch()));
        return r;
    }
}
