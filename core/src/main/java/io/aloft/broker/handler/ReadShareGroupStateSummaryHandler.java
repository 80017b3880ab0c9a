package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryResponse;

/**
 * ReadShareGroupStateSummary (API 87, v0-1, KIP-932; v1 adds the delivery-complete count of
 * KIP-1226): a group coordinator asks the share coordinator of this broker for share partitions'
 * start offsets and epochs (DescribeShareGroupOffsets). Brokers only (CLUSTER_ACTION on the cluster).
 * Reads only: the request's leader epoch is not recorded, as in Kafka. A share partition without
 * state is answered as Kafka answers it: NONE, state epoch 0, leader epoch 0, start offset -1, count
 * -1. NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS as the others; an empty group id gets an empty
 * answer.
 *
 * <p>Stateless; runs on the network thread, completes on the share coordinator's thread.
 */
public final class ReadShareGroupStateSummaryHandler implements ApiHandler<ReadShareGroupStateSummaryRequest> {
    private final ShareCoordinator coordinator;

    public ReadShareGroupStateSummaryHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context,
            ReadShareGroupStateSummaryRequest request) {
        ReadShareGroupStateSummaryRequestData data = request.data();
        ReadShareGroupStateSummaryResponseData response = new ReadShareGroupStateSummaryResponseData();
        boolean withCount = request.version() >= 1;
        return ShareStateAnswers.answer(context, request, data.groupId(), answers -> {
            for (ReadShareGroupStateSummaryRequestData.ReadStateSummaryData t : data.topics()) {
                List<PartitionResult> results = new ArrayList<>();
                response.results().add(new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult()
                        .setTopicId(t.topicId()).setPartitions(results));
                for (ReadShareGroupStateSummaryRequestData.PartitionData p : t.partitions()) {
                    PartitionResult result = new PartitionResult().setPartition(p.partition());
                    results.add(result);
                    answers.ask(result, ReadShareGroupStateSummaryHandler::set, t.topicId(), p.partition(),
                            coordinator::readSummary, (r, summary) -> {
                                if (summary.isEmpty()) {
                                    r.setStateEpoch(0).setLeaderEpoch(0).setStartOffset(-1);
                                } else {
                                    r.setStateEpoch(summary.get().stateEpoch())
                                            .setLeaderEpoch(summary.get().leaderEpoch())
                                            .setStartOffset(summary.get().startOffset());
                                    if (withCount) {
                                        r.setDeliveryCompleteCount(summary.get().deliveryCompleteCount());
                                    }
                                }
                            });
                }
            }
        }, () -> new ReadShareGroupStateSummaryResponse(response));
    }

    private static void set(PartitionResult result, ShareStateErrors e) {
        result.setErrorCode(e.error().code()).setErrorMessage(e.message());
    }
}
