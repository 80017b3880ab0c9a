package io.aloft.broker.share;

import io.aloft.broker.conformance.RawConnection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A share group member speaking the protocol frame by frame (ShareGroupHeartbeat v1, ShareFetch
 * v1, ShareAcknowledge v1) over one connection, for what kafka-clients hides: the error code a
 * broker answers an acknowledgement with. Reads partition 0 of one topic; keeps its share session
 * epoch.
 *
 * <p>Not thread-safe: one test thread uses it.
 */
final class RawShareMember implements AutoCloseable {
    /** What one fetch acquired: the first acquired range, or none. */
    record Acquired(long firstOffset, long lastOffset, short deliveryCount) {
    }

    private final RawConnection connection;
    private final String group;
    private final String member = Uuid.randomUuid().toString();
    private final Uuid topicId;
    private final String topic;
    private int epoch;

    private RawShareMember(RawConnection connection, String group, String topic, Uuid topicId) {
        this.connection = connection;
        this.group = group;
        this.topic = topic;
        this.topicId = topicId;
    }

    /** Connects and joins {@code group} subscribed to {@code topic} (retrying while the coordinator loads). */
    static RawShareMember join(ShareTarget target, String group, String topic) throws Exception {
        Uuid id = target.admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .topicId();
        RawShareMember m = new RawShareMember(RawConnection.open(target.bootstrap), group, topic, id);
        // As clients do: FindCoordinator first (Kafka creates its offsets topic on the first one).
        ShareTarget.await("the group's coordinator", () -> {
            try {
                FindCoordinatorResponseData r = (FindCoordinatorResponseData) m.connection.send(
                        ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequestData().setKeyType((byte) 0)
                                .setCoordinatorKeys(List.of(group))).body();
                return Errors.forCode(r.coordinators().get(0).errorCode());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, e -> e == Errors.NONE);
        ShareGroupHeartbeatResponseData r = ShareTarget.await("a member epoch for the raw member", () -> {
            try {
                return (ShareGroupHeartbeatResponseData) m.connection.send(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1,
                        new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(m.member)
                                .setMemberEpoch(0).setSubscribedTopicNames(List.of(topic))).body();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, h -> h != null && h.errorCode() == Errors.NONE.code());
        if (r.memberEpoch() <= 0) {
            throw new AssertionError("joined without a member epoch: " + r);
        }
        return m;
    }

    /**
     * ShareFetches (opening the session first) until some records are acquired, within {@link
     * ShareTarget#WAIT}; the first acquired range.
     */
    Acquired fetchUntilAcquired() {
        return ShareTarget.await(member + " acquiring records of " + topic, () -> {
            ShareFetchResponseData r = fetch();
            for (ShareFetchResponseData.ShareFetchableTopicResponse t : r.responses()) {
                for (ShareFetchResponseData.PartitionData p : t.partitions()) {
                    if (!p.acquiredRecords().isEmpty()) {
                        ShareFetchResponseData.AcquiredRecords a = p.acquiredRecords().get(0);
                        return new Acquired(a.firstOffset(), a.lastOffset(), a.deliveryCount());
                    }
                }
            }
            return null;
        }, a -> a != null);
    }

    private ShareFetchResponseData fetch() {
        ShareFetchRequestData.FetchPartitionCollection partitions = new ShareFetchRequestData.FetchPartitionCollection();
        partitions.add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
        ShareFetchRequestData.FetchTopicCollection topics = new ShareFetchRequestData.FetchTopicCollection();
        topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(partitions));
        ShareFetchRequestData request = new ShareFetchRequestData().setGroupId(group).setMemberId(member)
                .setShareSessionEpoch(epoch).setMaxWaitMs(200).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(100).setBatchSize(100).setTopics(epoch == 0 ? topics
                        : new ShareFetchRequestData.FetchTopicCollection());
        try {
            ShareFetchResponseData r = (ShareFetchResponseData) connection.send(ApiKeys.SHARE_FETCH, (short) 1, request)
                    .body();
            if (r.errorCode() != Errors.NONE.code()) {
                throw new AssertionError("ShareFetch at epoch " + epoch + ": " + r);
            }
            epoch++;
            return r;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Acknowledges {@code first..last} with {@code type} (1 accept, 2 release, 3 reject) and returns
     * the partition's error; fails on a top-level error.
     */
    Errors acknowledge(long first, long last, byte type) throws Exception {
        ShareAcknowledgeRequestData.AcknowledgePartitionCollection partitions =
                new ShareAcknowledgeRequestData.AcknowledgePartitionCollection();
        partitions.add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0)
                .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                        .setFirstOffset(first).setLastOffset(last).setAcknowledgeTypes(List.of(type)))));
        ShareAcknowledgeRequestData.AcknowledgeTopicCollection topics =
                new ShareAcknowledgeRequestData.AcknowledgeTopicCollection();
        topics.add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(topicId).setPartitions(partitions));
        ShareAcknowledgeResponseData r = (ShareAcknowledgeResponseData) connection.send(ApiKeys.SHARE_ACKNOWLEDGE,
                (short) 1, new ShareAcknowledgeRequestData().setGroupId(group).setMemberId(member)
                        .setShareSessionEpoch(epoch).setTopics(topics)).body();
        if (r.errorCode() != Errors.NONE.code()) {
            throw new AssertionError("ShareAcknowledge at epoch " + epoch + ": " + r);
        }
        epoch++;
        return Errors.forCode(r.responses().iterator().next().partitions().get(0).errorCode());
    }

    @Override
    public void close() throws Exception {
        try {
            connection.send(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, new ShareGroupHeartbeatRequestData()
                    .setGroupId(group).setMemberId(member).setMemberEpoch(-1));
        } finally {
            connection.close();
        }
    }
}
