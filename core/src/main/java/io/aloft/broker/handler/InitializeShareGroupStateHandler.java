package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateResponse;

/**
 * InitializeShareGroupState (API 83, KIP-932): a group coordinator, on this broker or another, sets a
 * share partition's state (state epoch, start offset, no batches) in the share coordinator of this
 * broker. Brokers only (CLUSTER_ACTION on the cluster, as Kafka). Each share partition is answered on
 * its own: NOT_COORDINATOR when this broker does not lead its {@code __share_group_state} partition,
 * COORDINATOR_LOAD_IN_PROGRESS while it loads, UNKNOWN_TOPIC_OR_PARTITION for a partition that does not
 * exist, FENCED_STATE_EPOCH for an older state epoch than stored. An empty group id gets an empty
 * answer, as Kafka gives.
 *
 * <p>Stateless; runs on the network thread, completes on the share coordinator's thread.
 */
public final class InitializeShareGroupStateHandler implements ApiHandler<InitializeShareGroupStateRequest> {
    private final ShareCoordinator coordinator;

    public InitializeShareGroupStateHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INITIALIZE_SHARE_GROUP_STATE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, InitializeShareGroupStateRequest request) {
        InitializeShareGroupStateRequestData data = request.data();
        InitializeShareGroupStateResponseData response = new InitializeShareGroupStateResponseData();
        return ShareStateAnswers.answer(context, request, data.groupId(), answers -> {
            for (InitializeShareGroupStateRequestData.InitializeStateData t : data.topics()) {
                List<PartitionResult> results = new ArrayList<>();
                response.results().add(new InitializeShareGroupStateResponseData.InitializeStateResult()
                        .setTopicId(t.topicId()).setPartitions(results));
                for (InitializeShareGroupStateRequestData.PartitionData p : t.partitions()) {
                    PartitionResult result = new PartitionResult().setPartition(p.partition());
                    results.add(result);
                    answers.ask(result, InitializeShareGroupStateHandler::set, t.topicId(), p.partition(),
                            key -> coordinator.initialize(key, p.stateEpoch(), p.startOffset()), (r, v) -> { });
                }
            }
        }, () -> new InitializeShareGroupStateResponse(response));
    }

    private static void set(PartitionResult result, ShareStateErrors e) {
        result.setErrorCode(e.error().code()).setErrorMessage(e.message());
    }
}
