package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateResponse;

/**
 * WriteShareGroupState (API 85, v0-1, KIP-932; v1 carries the delivery-complete count of KIP-1226): a
 * share partition's leader, on this broker or another, merges a change into its state in the share
 * coordinator of this broker. Brokers only (CLUSTER_ACTION on the cluster). Each share partition is
 * answered on its own, as Kafka does: INVALID_REQUEST when never initialized, FENCED_LEADER_EPOCH /
 * FENCED_STATE_EPOCH for an older epoch than stored, NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS
 * as the others. A batch whose last offset is below its first, or at the largest offset, gets
 * INVALID_REQUEST and nothing of its share partition is written (Kafka stores such a batch as sent).
 * An empty group id gets an empty answer.
 *
 * <p>Stateless; runs on the network thread, completes on the share coordinator's thread.
 */
public final class WriteShareGroupStateHandler implements ApiHandler<WriteShareGroupStateRequest> {
    private final ShareCoordinator coordinator;

    public WriteShareGroupStateHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.WRITE_SHARE_GROUP_STATE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, WriteShareGroupStateRequest request) {
        WriteShareGroupStateRequestData data = request.data();
        WriteShareGroupStateResponseData response = new WriteShareGroupStateResponseData();
        return ShareStateAnswers.answer(context, request, data.groupId(), answers -> {
            for (WriteShareGroupStateRequestData.WriteStateData t : data.topics()) {
                List<PartitionResult> results = new ArrayList<>();
                response.results().add(new WriteShareGroupStateResponseData.WriteStateResult()
                        .setTopicId(t.topicId()).setPartitions(results));
                for (WriteShareGroupStateRequestData.PartitionData p : t.partitions()) {
                    PartitionResult result = new PartitionResult().setPartition(p.partition());
                    results.add(result);
                    answers.ask(result, WriteShareGroupStateHandler::set, t.topicId(), p.partition(),
                            key -> write(key, p, request.version()), (r, v) -> { });
                }
            }
        }, () -> new WriteShareGroupStateResponse(response));
    }

    /** Writes one share partition's change, or fails with INVALID_REQUEST if one of its batches is malformed. */
    private CompletableFuture<Void> write(SharePartitionKey key, WriteShareGroupStateRequestData.PartitionData p,
            short version) {
        List<StateBatch> batches = batches(p);
        if (batches == null) {
            return CompletableFuture.failedFuture(new InvalidRequestException("a state batch ends before it starts"));
        }
        // v0 has no delivery-complete count: not counted, as Kafka stores it.
        int completed = version >= 1 ? p.deliveryCompleteCount() : -1;
        return coordinator.write(key, p.stateEpoch(), p.leaderEpoch(), p.startOffset(), completed, batches);
    }

    /** The batches, or null if one is malformed. */
    private static List<StateBatch> batches(WriteShareGroupStateRequestData.PartitionData p) {
        List<StateBatch> out = new ArrayList<>(p.stateBatches().size());
        for (WriteShareGroupStateRequestData.StateBatch b : p.stateBatches()) {
            if (b.lastOffset() < b.firstOffset() || b.lastOffset() == Long.MAX_VALUE) {
                return null;
            }
            out.add(new StateBatch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
        }
        return out;
    }

    private static void set(PartitionResult result, ShareStateErrors e) {
        result.setErrorCode(e.error().code()).setErrorMessage(e.message());
    }
}
