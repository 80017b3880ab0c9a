package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateResponse;

/**
 * DeleteShareGroupState (API 86, KIP-932): a group coordinator forgets share partitions' state in the
 * share coordinator of this broker (DeleteGroups, DeleteShareGroupOffsets). Brokers only
 * (CLUSTER_ACTION on the cluster). Each share partition is answered on its own: NONE also when there
 * was no state, as Kafka answers; NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS as the others. An
 * empty group id gets an empty answer.
 *
 * <p>Stateless; runs on the network thread, completes on the share coordinator's thread.
 */
public final class DeleteShareGroupStateHandler implements ApiHandler<DeleteShareGroupStateRequest> {
    private final ShareCoordinator coordinator;

    public DeleteShareGroupStateHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_SHARE_GROUP_STATE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteShareGroupStateRequest request) {
        DeleteShareGroupStateRequestData data = request.data();
        DeleteShareGroupStateResponseData response = new DeleteShareGroupStateResponseData();
        return ShareStateAnswers.answer(context, request, data.groupId(), answers -> {
            for (DeleteShareGroupStateRequestData.DeleteStateData t : data.topics()) {
                List<PartitionResult> results = new ArrayList<>();
                response.results().add(new DeleteShareGroupStateResponseData.DeleteStateResult()
                        .setTopicId(t.topicId()).setPartitions(results));
                for (DeleteShareGroupStateRequestData.PartitionData p : t.partitions()) {
                    PartitionResult result = new PartitionResult().setPartition(p.partition());
                    results.add(result);
                    answers.ask(result, DeleteShareGroupStateHandler::set, t.topicId(), p.partition(),
                            coordinator::delete, (r, v) -> { });
                }
            }
        }, () -> new DeleteShareGroupStateResponse(response));
    }

    private static void set(PartitionResult result, ShareStateErrors e) {
        result.setErrorCode(e.error().code()).setErrorMessage(e.message());
    }
}
