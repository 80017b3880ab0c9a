package io.aloft.broker.share.state;

import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateResponse;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryResponse;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateResponse;

/**
 * The persister's calls as Kafka's requests to another broker's share coordinator, one share
 * partition each, and their answers back: an error code becomes its Kafka exception (the futures of
 * {@link RoutingShareStatePersister} fail with it). Two answers mean "no state", as Kafka gives them:
 * a read answered INVALID_REQUEST (the persister sends nothing else invalid), and a summary with state
 * epoch 0, leader epoch 0 and start offset -1 (what Kafka answers for a share partition it has no
 * state of; an initialized one it cannot be told from has no start offset either). Stateless.
 */
final class ShareStateRequests {
    private ShareStateRequests() {
    }

    static InitializeShareGroupStateRequest.Builder initialize(SharePartitionKey key, int stateEpoch,
            long startOffset) {
        return new InitializeShareGroupStateRequest.Builder(new InitializeShareGroupStateRequestData()
                .setGroupId(key.groupId()).setTopics(List.of(new InitializeShareGroupStateRequestData
                        .InitializeStateData().setTopicId(key.topicId()).setPartitions(List.of(
                                new InitializeShareGroupStateRequestData.PartitionData().setPartition(key.partition())
                                        .setStateEpoch(stateEpoch).setStartOffset(startOffset))))));
    }

    static Void initialized(AbstractResponse r) {
        InitializeShareGroupStateResponseData d = ((InitializeShareGroupStateResponse) r).data();
        if (d.results().size() != 1 || d.results().get(0).partitions().size() != 1) {
            throw malformed("InitializeShareGroupState");
        }
        var p = d.results().get(0).partitions().get(0);
        throwIfError(p.errorCode(), p.errorMessage());
        return null;
    }

    static ReadShareGroupStateRequest.Builder read(SharePartitionKey key, int leaderEpoch) {
        return new ReadShareGroupStateRequest.Builder(new ReadShareGroupStateRequestData().setGroupId(key.groupId())
                .setTopics(List.of(new ReadShareGroupStateRequestData.ReadStateData().setTopicId(key.topicId())
                        .setPartitions(List.of(new ReadShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()).setLeaderEpoch(leaderEpoch))))));
    }

    /**
     * The state read; its leader epoch is the one read with (ReadShareGroupState does not carry the
     * stored one, which is at most that unless the reader passed -1).
     */
    static Optional<ShareState> state(AbstractResponse r, int leaderEpoch) {
        ReadShareGroupStateResponseData d = ((ReadShareGroupStateResponse) r).data();
        if (d.results().size() != 1 || d.results().get(0).partitions().size() != 1) {
            throw malformed("ReadShareGroupState");
        }
        ReadShareGroupStateResponseData.PartitionResult p = d.results().get(0).partitions().get(0);
        if (p.errorCode() == Errors.INVALID_REQUEST.code()) {
            return Optional.empty();
        }
        throwIfError(p.errorCode(), p.errorMessage());
        List<StateBatch> batches = p.stateBatches().stream().map(b -> new StateBatch(b.firstOffset(), b.lastOffset(),
                b.deliveryState(), b.deliveryCount())).toList();
        return Optional.of(new ShareState(p.stateEpoch(), p.startOffset(), leaderEpoch, batches));
    }

    static WriteShareGroupStateRequest.Builder write(SharePartitionKey key, int stateEpoch, int leaderEpoch,
            long startOffset, int deliveryCompleteCount, List<StateBatch> batches) {
        List<WriteShareGroupStateRequestData.StateBatch> wire = batches.stream().map(b ->
                new WriteShareGroupStateRequestData.StateBatch().setFirstOffset(b.firstOffset())
                        .setLastOffset(b.lastOffset()).setDeliveryState(b.deliveryState())
                        .setDeliveryCount(b.deliveryCount())).toList();
        return new WriteShareGroupStateRequest.Builder(new WriteShareGroupStateRequestData().setGroupId(key.groupId())
                .setTopics(List.of(new WriteShareGroupStateRequestData.WriteStateData().setTopicId(key.topicId())
                        .setPartitions(List.of(new WriteShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()).setStateEpoch(stateEpoch).setLeaderEpoch(leaderEpoch)
                                .setStartOffset(startOffset).setDeliveryCompleteCount(deliveryCompleteCount)
                                .setStateBatches(wire))))));
    }

    static Void written(AbstractResponse r) {
        WriteShareGroupStateResponseData d = ((WriteShareGroupStateResponse) r).data();
        if (d.results().size() != 1 || d.results().get(0).partitions().size() != 1) {
            throw malformed("WriteShareGroupState");
        }
        var p = d.results().get(0).partitions().get(0);
        throwIfError(p.errorCode(), p.errorMessage());
        return null;
    }

    static ReadShareGroupStateSummaryRequest.Builder readSummary(SharePartitionKey key) {
        return new ReadShareGroupStateSummaryRequest.Builder(new ReadShareGroupStateSummaryRequestData()
                .setGroupId(key.groupId()).setTopics(List.of(new ReadShareGroupStateSummaryRequestData
                        .ReadStateSummaryData().setTopicId(key.topicId()).setPartitions(List.of(
                                new ReadShareGroupStateSummaryRequestData.PartitionData()
                                        .setPartition(key.partition()).setLeaderEpoch(-1))))));
    }

    static Optional<ShareStateSummary> summary(AbstractResponse r) {
        ReadShareGroupStateSummaryResponseData d = ((ReadShareGroupStateSummaryResponse) r).data();
        if (d.results().size() != 1 || d.results().get(0).partitions().size() != 1) {
            throw malformed("ReadShareGroupStateSummary");
        }
        ReadShareGroupStateSummaryResponseData.PartitionResult p = d.results().get(0).partitions().get(0);
        throwIfError(p.errorCode(), p.errorMessage());
        if (p.stateEpoch() == 0 && p.leaderEpoch() == 0 && p.startOffset() == -1) {
            return Optional.empty();
        }
        return Optional.of(new ShareStateSummary(p.stateEpoch(), p.startOffset(), p.leaderEpoch(),
                p.deliveryCompleteCount()));
    }

    static DeleteShareGroupStateRequest.Builder delete(SharePartitionKey key) {
        return new DeleteShareGroupStateRequest.Builder(new DeleteShareGroupStateRequestData()
                .setGroupId(key.groupId()).setTopics(List.of(new DeleteShareGroupStateRequestData.DeleteStateData()
                        .setTopicId(key.topicId()).setPartitions(List.of(
                                new DeleteShareGroupStateRequestData.PartitionData().setPartition(key.partition()))))));
    }

    static Void deleted(AbstractResponse r) {
        DeleteShareGroupStateResponseData d = ((DeleteShareGroupStateResponse) r).data();
        if (d.results().size() != 1 || d.results().get(0).partitions().size() != 1) {
            throw malformed("DeleteShareGroupState");
        }
        var p = d.results().get(0).partitions().get(0);
        throwIfError(p.errorCode(), p.errorMessage());
        return null;
    }

    private static void throwIfError(short code, String message) {
        Errors error = Errors.forCode(code);
        if (error != Errors.NONE) {
            throw message == null || message.isEmpty() ? error.exception() : error.exception(message);
        }
    }

    private static UnknownServerException malformed(String api) {
        return new UnknownServerException(api + " answered for another number of share partitions than asked");
    }
}
