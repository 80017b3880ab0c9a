package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
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
        if (!context.authorizedOnCluster(AclOperation.CLUSTER_ACTION)) {
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        WriteShareGroupStateResponseData response = new WriteShareGroupStateResponseData();
        if (data.groupId() == null || data.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(new WriteShareGroupStateResponse(response));
        }
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (WriteShareGroupStateRequestData.WriteStateData t : data.topics()) {
            List<PartitionResult> results = new ArrayList<>();
            response.results().add(new WriteShareGroupStateResponseData.WriteStateResult().setTopicId(t.topicId())
                    .setPartitions(results));
            for (WriteShareGroupStateRequestData.PartitionData p : t.partitions()) {
                PartitionResult result = new PartitionResult().setPartition(p.partition());
                results.add(result);
                if (p.partition() < 0) {
                    set(result, ShareStateErrors.NEGATIVE_PARTITION);
                    continue;
                }
                List<StateBatch> batches = batches(p);
                if (batches == null) {
                    set(result, new ShareStateErrors(Errors.INVALID_REQUEST, "a state batch ends before it starts"));
                    continue;
                }
                // v0 has no delivery-complete count: not counted, as Kafka stores it.
                int completed = request.version() >= 1 ? p.deliveryCompleteCount() : -1;
                SharePartitionKey key = new SharePartitionKey(data.groupId(), t.topicId(), p.partition());
                all.add(coordinator.write(key, p.stateEpoch(), p.leaderEpoch(), p.startOffset(), completed, batches)
                        .handle((v, e) -> {
                            if (e != null) {
                                set(result, ShareStateErrors.of(e));
                            }
                            return null;
                        }));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new))
                .thenApply(v -> new WriteShareGroupStateResponse(response));
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
