package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.share.state.ShareCoordinator;
import io.aloft.broker.share.state.SharePartitionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
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
        if (!context.authorizedOnCluster(AclOperation.CLUSTER_ACTION)) {
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        ReadShareGroupStateSummaryResponseData response = new ReadShareGroupStateSummaryResponseData();
        if (data.groupId() == null || data.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(new ReadShareGroupStateSummaryResponse(response));
        }
        boolean withCount = request.version() >= 1;
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (ReadShareGroupStateSummaryRequestData.ReadStateSummaryData t : data.topics()) {
            List<PartitionResult> results = new ArrayList<>();
            response.results().add(new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult()
                    .setTopicId(t.topicId()).setPartitions(results));
            for (ReadShareGroupStateSummaryRequestData.PartitionData p : t.partitions()) {
                PartitionResult result = new PartitionResult().setPartition(p.partition());
                results.add(result);
                if (p.partition() < 0) {
                    ShareStateErrors e = ShareStateErrors.NEGATIVE_PARTITION;
                    result.setErrorCode(e.error().code()).setErrorMessage(e.message());
                    continue;
                }
                SharePartitionKey key = new SharePartitionKey(data.groupId(), t.topicId(), p.partition());
                all.add(coordinator.readSummary(key).handle((summary, e) -> {
                    if (e != null) {
                        ShareStateErrors error = ShareStateErrors.of(e);
                        result.setErrorCode(error.error().code()).setErrorMessage(error.message());
                    } else if (summary.isEmpty()) {
                        result.setStateEpoch(0).setLeaderEpoch(0).setStartOffset(-1);
                    } else {
                        result.setStateEpoch(summary.get().stateEpoch()).setLeaderEpoch(summary.get().leaderEpoch())
                                .setStartOffset(summary.get().startOffset());
                        if (withCount) {
                            result.setDeliveryCompleteCount(summary.get().deliveryCompleteCount());
                        }
                    }
                    return null;
                }));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new))
                .thenApply(v -> new ReadShareGroupStateSummaryResponse(response));
    }
}
