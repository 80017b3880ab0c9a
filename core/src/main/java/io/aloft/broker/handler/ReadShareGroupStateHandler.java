package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import io.aloft.broker.share.state.ShareState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateResponse;

/**
 * ReadShareGroupState (API 84, KIP-932): a share partition's leader, on this broker or another, reads
 * its state from the share coordinator of this broker, which records the reader's leader epoch.
 * Brokers only (CLUSTER_ACTION on the cluster). Each share partition is answered on its own, as Kafka
 * does: its state; INVALID_REQUEST when it has none (never initialized, or deleted);
 * FENCED_LEADER_EPOCH for an older leader epoch than stored; NOT_COORDINATOR /
 * COORDINATOR_LOAD_IN_PROGRESS when this broker does not serve its {@code __share_group_state}
 * partition or is loading it. An empty group id gets an empty answer.
 *
 * <p>Stateless; runs on the network thread, completes on the share coordinator's thread.
 */
public final class ReadShareGroupStateHandler implements ApiHandler<ReadShareGroupStateRequest> {
    static final String UNINITIALIZED = "Read operation on uninitialized share partition not allowed.";

    private final ShareCoordinator coordinator;

    public ReadShareGroupStateHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.READ_SHARE_GROUP_STATE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ReadShareGroupStateRequest request) {
        ReadShareGroupStateRequestData data = request.data();
        ReadShareGroupStateResponseData response = new ReadShareGroupStateResponseData();
        return ShareStateAnswers.answer(context, request, data.groupId(), answers -> {
            for (ReadShareGroupStateRequestData.ReadStateData t : data.topics()) {
                List<PartitionResult> results = new ArrayList<>();
                response.results().add(new ReadShareGroupStateResponseData.ReadStateResult()
                        .setTopicId(t.topicId()).setPartitions(results));
                for (ReadShareGroupStateRequestData.PartitionData p : t.partitions()) {
                    PartitionResult result = new PartitionResult().setPartition(p.partition());
                    results.add(result);
                    answers.ask(result, ReadShareGroupStateHandler::set, t.topicId(), p.partition(),
                            key -> coordinator.read(key, p.leaderEpoch()), (r, state) -> {
                                if (state.isEmpty()) {
                                    set(r, new ShareStateErrors(Errors.INVALID_REQUEST, UNINITIALIZED));
                                } else {
                                    fill(r, state.get());
                                }
                            });
                }
            }
        }, () -> new ReadShareGroupStateResponse(response));
    }

    private static void fill(PartitionResult result, ShareState s) {
        result.setStateEpoch(s.stateEpoch()).setStartOffset(s.startOffset()).setStateBatches(s.batches().stream()
                .map(b -> new ReadShareGroupStateResponseData.StateBatch().setFirstOffset(b.firstOffset())
                        .setLastOffset(b.lastOffset()).setDeliveryState(b.deliveryState())
                        .setDeliveryCount(b.deliveryCount())).toList());
    }

    private static void set(PartitionResult result, ShareStateErrors e) {
        result.setErrorCode(e.error().code()).setErrorMessage(e.message());
    }
}
