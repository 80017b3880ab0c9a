package io.aloft.broker.handler;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.fetch.SessionPartition;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acquired;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData.AcquiredRecords;
import org.apache.kafka.common.message.ShareFetchResponseData.PartitionData;
import org.apache.kafka.common.message.ShareFetchResponseData.ShareFetchableTopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareAcknowledgeResponse;
import org.apache.kafka.common.requests.ShareFetchResponse;

/**
 * Builds ShareFetch and ShareAcknowledge responses as Kafka 4.3 shapes them: a whole-request error
 * with no partitions and AcquisitionLockTimeoutMs 0; otherwise the group's lock duration, the
 * partitions by topic in the order first answered, CurrentLeader left at Kafka's default (0, 0)
 * except for NOT_LEADER_OR_FOLLOWER, whose partition names its current leader and whose response
 * carries that leader's endpoint on the request's listener (KIP-951, {@link LeaderHints}).
 *
 * <p>Confined to the thread building one response.
 */
final class ShareResponses {
    private ShareResponses() {
    }

    static CompletableFuture<AbstractResponse> fetchError(Errors error) {
        return CompletableFuture.completedFuture(fetchResponse(error, 0));
    }

    static CompletableFuture<AbstractResponse> acknowledgeError(Errors error) {
        return CompletableFuture.completedFuture(new ShareAcknowledgeResponse(new ShareAcknowledgeResponseData()
                .setErrorCode(error.code())));
    }

    /**
     * An empty ShareFetch response to fill in: kafka-clients builds it only from its parts (its
     * constructor from the message is private), and its message is the live one.
     */
    private static ShareFetchResponse fetchResponse(Errors error, int lockMs) {
        return ShareFetchResponse.of(error, 0, new LinkedHashMap<>(), List.of(), lockMs);
    }

    /** One ShareFetch response's partitions. */
    static final class FetchBuilder {
        private final LeaderHints hints;
        private final int lockMs;
        private final Map<Uuid, ShareFetchableTopicResponse> topics = new LinkedHashMap<>();
        private final Map<SessionPartition, PartitionData> partitions = new LinkedHashMap<>();

        FetchBuilder(MetadataCache.View view, String listener, int lockMs) {
            this.hints = new LeaderHints(view, listener);
            this.lockMs = lockMs;
        }

        private PartitionData partition(SessionPartition p) {
            return partitions.computeIfAbsent(p, k -> {
                PartitionData pd = new PartitionData().setPartitionIndex(k.partition()).setRecords(MemoryRecords.EMPTY);
                topics.computeIfAbsent(k.topicId(), id -> new ShareFetchableTopicResponse().setTopicId(id))
                        .partitions().add(pd);
                return pd;
            });
        }

        void fetchError(SessionPartition p, Errors error) {
            partition(p).setErrorCode(error.code());
        }

        /** Records are sent by reference ({@code a.records()}, whole stored batches). */
        void acquired(SessionPartition p, Acquired a) {
            PartitionData pd = partition(p).setErrorCode(a.error().code()).setErrorMessage(a.errorMessage());
            if (a.error() == Errors.NONE) {
                pd.setRecords(a.records());
                for (Acquired.AcquiredRange r : a.ranges()) {
                    pd.acquiredRecords().add(new AcquiredRecords().setFirstOffset(r.firstOffset())
                            .setLastOffset(r.lastOffset()).setDeliveryCount(r.deliveryCount()));
                }
            }
        }

        void acknowledged(SessionPartition p, AcknowledgeResult r) {
            partition(p).setAcknowledgeErrorCode(r.error().code()).setAcknowledgeErrorMessage(r.errorMessage());
        }

        AbstractResponse build() {
            ShareFetchResponse response = fetchResponse(Errors.NONE, lockMs);
            ShareFetchResponseData data = response.data();
            topics.values().forEach(data.responses()::add);
            partitions.forEach((p, pd) -> {
                if (pd.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()
                        || pd.acknowledgeErrorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()) {
                    LeaderHints.Leader leader = hints.leader(hints.topicName(null, p.topicId()), p.partition());
                    pd.setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(leader.id())
                            .setLeaderEpoch(leader.epoch()));
                }
            });
            for (LeaderHints.Node n : hints.nodes()) {
                data.nodeEndpoints().add(new ShareFetchResponseData.NodeEndpoint().setNodeId(n.id()).setHost(n.host())
                        .setPort(n.port()).setRack(n.rack()));
            }
            return response;
        }
    }

    /** One ShareAcknowledge response. */
    static AbstractResponse acknowledged(MetadataCache.View view, String listener, int lockMs,
            Map<SessionPartition, AcknowledgeResult> results) {
        LeaderHints hints = new LeaderHints(view, listener);
        ShareAcknowledgeResponseData data = new ShareAcknowledgeResponseData().setErrorCode(Errors.NONE.code())
                .setAcquisitionLockTimeoutMs(lockMs);
        Map<Uuid, ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse> topics = new LinkedHashMap<>();
        results.forEach((p, r) -> {
            ShareAcknowledgeResponseData.PartitionData pd = new ShareAcknowledgeResponseData.PartitionData()
                    .setPartitionIndex(p.partition()).setErrorCode(r.error().code()).setErrorMessage(r.errorMessage());
            if (r.error() == Errors.NOT_LEADER_OR_FOLLOWER) {
                LeaderHints.Leader leader = hints.leader(hints.topicName(null, p.topicId()), p.partition());
                pd.setCurrentLeader(new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(leader.id())
                        .setLeaderEpoch(leader.epoch()));
            }
            topics.computeIfAbsent(p.topicId(), id -> new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse()
                    .setTopicId(id)).partitions().add(pd);
        });
        topics.values().forEach(data.responses()::add);
        for (LeaderHints.Node n : hints.nodes()) {
            data.nodeEndpoints().add(new ShareAcknowledgeResponseData.NodeEndpoint().setNodeId(n.id())
                    .setHost(n.host()).setPort(n.port()).setRack(n.rack()));
        }
        return new ShareAcknowledgeResponse(data);
    }
}
