package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Share groups (KIP-932) on the wire, the error paths above all: ShareGroupHeartbeat (join, a
 * heartbeat, a wrong epoch, an unknown member, bad input, leave), ShareFetch (sessions: open, a
 * wrong or unknown session epoch, acknowledgements on epoch 0, an unknown topic id, a closed
 * session, a member the group does not have) and ShareAcknowledge (no session, epoch 0, a bad
 * acknowledge type, an unknown topic id, a closed session). Each case uses a group of its own. Each fetch reads {@link Target#DATA} partition 0 as a member that
 * joined with ShareGroupHeartbeat first; the transcripts hold error codes only (which records a
 * fetch acquires is the end-to-end tests' business: {@code io.aloft.broker.share}).
 *
 * <p>Stateless.
 */
final class ShareCases {
    /** An id no topic has, the same on both targets so that their transcripts name it alike. */
    static final Uuid NO_SUCH_TOPIC = new Uuid(0x5ade5ade5adeL, 0x42L);
    /** A fetch waits at most this long for records: the data topic has none for a new share group. */
    private static final int MAX_WAIT_MS = 100;

    private static final java.util.Set<Errors> RETRIABLE = java.util.Set.of(Errors.NOT_COORDINATOR,
            Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE);

    private ShareCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_HEARTBEAT, "join, heartbeat, fenced, unknown member, leave",
                1, 1, (s, v) -> {
                    String group = "conf-share-hb-v" + v + "-" + Uuid.randomUuid();
                    String member = Uuid.randomUuid().toString();
                    ShareGroupHeartbeatResponseData joined = join(s, "join", group, member);
                    s.ask("heartbeat", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member,
                            joined.memberEpoch()));
                    s.ask("epoch ahead", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member,
                            joined.memberEpoch() + 10));
                    s.ask("unknown member", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group,
                            Uuid.randomUuid().toString(), 1));
                    s.ask("unknown group", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat("conf-share-no-group",
                            member, 1));
                    s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member, -1));
                    s.ask("heartbeat after leaving", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member,
                            joined.memberEpoch()));
                }));
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_HEARTBEAT, "bad input", 1, 1, (s, v) -> {
            String group = "conf-share-hb-bad-v" + v;
            s.ask("empty group id", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest("", Uuid.randomUuid().toString()));
            s.ask("empty member id", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group, ""));
            s.ask("no subscription", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group,
                    Uuid.randomUuid().toString()).setSubscribedTopicNames(null));
            s.ask("negative epoch", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, Uuid.randomUuid().toString(),
                    -5));
        }));
        shapes.add(Shape.script(ApiKeys.SHARE_FETCH, "session errors", 1, 2, (s, v) -> {
            String group = "conf-share-fetch-v" + v + "-" + Uuid.randomUuid();
            String member = Uuid.randomUuid().toString();
            join(s, "join", group, member);
            s.ask("acknowledgements on epoch 0", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 0, v)
                    .setTopics(topics(s.target.topicId(Target.DATA), List.of(new ShareFetchRequestData
                            .AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                            .setAcknowledgeTypes(List.of((byte) 1))))));
            s.ask("unknown session", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 3, v));
            askTopLevel(s, "open", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 0, v));
            s.ask("epoch ahead", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 5, v));
            askTopLevel(s, "next epoch", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 1, v));
            s.ask("stale epoch", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 1, v));
            s.ask("close", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, -1, v)
                    .setTopics(new ShareFetchRequestData.FetchTopicCollection()));
            s.ask("after close", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 2, v));
            askTopLevel(s, "member not in the group", ApiKeys.SHARE_FETCH, v, fetch(s.target, group,
                    Uuid.randomUuid().toString(), 0, v));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, heartbeat(group, member, -1));
        }));
        shapes.add(Shape.script(ApiKeys.SHARE_FETCH, "unknown topic id", 1, 2, (s, v) -> {
            String group = "conf-share-fetch-topic-v" + v + "-" + Uuid.randomUuid();
            String member = Uuid.randomUuid().toString();
            join(s, "join", group, member);
            s.ask("unknown topic id", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 0, v)
                    .setTopics(topics(NO_SUCH_TOPIC, List.of())));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, heartbeat(group, member, -1));
        }));
        shapes.add(Shape.script(ApiKeys.SHARE_ACKNOWLEDGE, "session and record errors", 1, 2, (s, v) -> {
            String group = "conf-share-ack-v" + v + "-" + Uuid.randomUuid();
            String member = Uuid.randomUuid().toString();
            Uuid data = s.target.topicId(Target.DATA);
            join(s, "join", group, member);
            s.ask("no session", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 1, data, 0, (byte) 1));
            s.ask("epoch 0", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 0, data, 0, (byte) 1));
            askTopLevel(s, "open", ApiKeys.SHARE_FETCH, v, fetch(s.target, group, member, 0, v));
            s.ask("bad acknowledge type", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 1, data, 0,
                    (byte) 9));
            s.ask("unknown topic id", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 2, NO_SUCH_TOPIC, 0,
                    (byte) 1));
            s.ask("epoch ahead", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 9, data, 0, (byte) 1));
            s.ask("close", ApiKeys.SHARE_ACKNOWLEDGE, v, new ShareAcknowledgeRequestData().setGroupId(group)
                    .setMemberId(member).setShareSessionEpoch(-1));
            s.ask("after close", ApiKeys.SHARE_ACKNOWLEDGE, v, acknowledge(group, member, 3, data, 0, (byte) 1));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, heartbeat(group, member, -1));
        }));
        return shapes;
    }

    /**
     * Asks, recording the response's top-level code only: what a fetch of a share partition answers
     * for the partition right after the member joined depends on whether the group's assignment
     * has initialized the partition's state yet (Kafka 4.3.1 then answers the partition with no
     * error, without it, or even UNKNOWN_SERVER_ERROR), so it is no fact to compare.
     */
    private static void askTopLevel(Session s, String step, ApiKeys api, short v,
            org.apache.kafka.common.protocol.ApiMessage body) throws Exception {
        s.ask(step, api, v, body);
        s.transcript().keySet().removeIf(k -> k.startsWith(step + ": ") && !k.equals(step + ": errorCode"));
    }

    /** A member joining with epoch 0, subscribed to the data topic. */
    private static ShareGroupHeartbeatRequestData joinRequest(String group, String member) {
        return heartbeat(group, member, 0).setSubscribedTopicNames(List.of(Target.DATA));
    }

    static ShareGroupHeartbeatRequestData heartbeat(String group, String member, int epoch) {
        return new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch);
    }

    /** Joins; the answer must be a member epoch (else the rest of the case would test nothing). */
    static ShareGroupHeartbeatResponseData join(Session s, String step, String group, String member)
            throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        ShareGroupHeartbeatResponseData r = (ShareGroupHeartbeatResponseData) s.ask(step,
                ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, joinRequest(group, member));
        // The group's coordinator may still be loading its offsets partition, as a client retries.
        while (r != null && RETRIABLE.contains(Errors.forCode(r.errorCode())) && System.nanoTime() < deadline) {
            Target.pause();
            r = (ShareGroupHeartbeatResponseData) s.ask(step, ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1,
                    joinRequest(group, member));
        }
        if (r == null || r.errorCode() != 0 || r.memberEpoch() <= 0) {
            throw new AssertionError(s.target + ": the share group join was not answered with a member epoch: " + r);
        }
        return r;
    }

    /** A ShareFetch of the data topic's partition 0 (no acknowledgements) at {@code epoch}. */
    private static ShareFetchRequestData fetch(Target t, String group, String member, int epoch, short version) {
        ShareFetchRequestData r = new ShareFetchRequestData().setGroupId(group).setMemberId(member)
                .setShareSessionEpoch(epoch).setMaxWaitMs(MAX_WAIT_MS).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(10).setBatchSize(10).setTopics(topics(t.topicId(Target.DATA), List.of()));
        return r;
    }

    private static ShareFetchRequestData.FetchTopicCollection topics(Uuid topicId,
            List<ShareFetchRequestData.AcknowledgementBatch> acknowledgements) {
        ShareFetchRequestData.FetchPartitionCollection partitions = new ShareFetchRequestData.FetchPartitionCollection();
        partitions.add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0)
                .setAcknowledgementBatches(acknowledgements));
        ShareFetchRequestData.FetchTopicCollection topics = new ShareFetchRequestData.FetchTopicCollection();
        topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(partitions));
        return topics;
    }

    /** A ShareAcknowledge of {@code offset} of partition 0 of {@code topicId} with {@code type}, at {@code epoch}. */
    private static ShareAcknowledgeRequestData acknowledge(String group, String member, int epoch, Uuid topicId,
            long offset, byte type) {
        ShareAcknowledgeRequestData.AcknowledgePartitionCollection partitions =
                new ShareAcknowledgeRequestData.AcknowledgePartitionCollection();
        partitions.add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0)
                .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                        .setFirstOffset(offset).setLastOffset(offset).setAcknowledgeTypes(List.of(type)))));
        ShareAcknowledgeRequestData.AcknowledgeTopicCollection topics =
                new ShareAcknowledgeRequestData.AcknowledgeTopicCollection();
        topics.add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(topicId).setPartitions(partitions));
        return new ShareAcknowledgeRequestData().setGroupId(group).setMemberId(member).setShareSessionEpoch(epoch)
                .setTopics(topics);
    }
}
