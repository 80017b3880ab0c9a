package io.aloft.broker.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator for every key type, and the classic group protocol as consumers of each generation
 * speak it: a member joins (v4+: after MEMBER_ID_REQUIRED), syncs, heartbeats, commits and fetches
 * offsets and leaves, each API at the version under test and the others at one fixed version; plus
 * listing, describing and deleting groups and offsets, with stale generations, unknown members,
 * groups and topics.
 *
 * <p>Stateless.
 */
final class GroupCases {
    /** Versions of the steps around the API under test (both brokers serve them). */
    private static final short JOIN = 9;
    private static final short SYNC = 5;
    private static final short COMMIT = 9;
    static final String SHARE_KEY = "conf-share:AAAAAAAAAAAAAAAAAAAAAQ:0";

    private GroupCases() {
    }

    /** A joined and synced member. */
    record Member(String group, String memberId, int generation) {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "group key", (t, v) -> find(v, (byte) 0, "conf-group")));
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "two group keys", 4, 6, (t, v) ->
                new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of("conf-a", "conf-b"))));
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "transaction key", 1, 6, (t, v) -> find(v, (byte) 1,
                "conf-tx")));
        // A share key names a group, a topic id and a partition; any id will do for the lookup.
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "share key before v6", 1, 5, (t, v) -> find(v, (byte) 2,
                SHARE_KEY)));
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "share key", 6, 6, (t, v) -> find(v, (byte) 2, SHARE_KEY)));
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "unknown key type", 1, 6, (t, v) -> find(v, (byte) 3,
                "conf-group")));

        shapes.add(Shape.script(ApiKeys.JOIN_GROUP, "join, sync, leave", 0, 9, (s, v) -> {
            Member m = join(s, "conf-join-v" + v, (short) v);
            sync(s, m, SYNC);
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.JOIN_GROUP, "unknown member id", 0, 9, (s, v) -> s.ask("", ApiKeys.JOIN_GROUP,
                v, joinRequest("conf-join-unknown-v" + v, "conf-no-such-member", v))));
        shapes.add(Shape.script(ApiKeys.SYNC_GROUP, "leader sync, stale generation", 0, 5, (s, v) -> {
            Member m = join(s, "conf-sync-v" + v, JOIN);
            sync(s, m, v);
            s.ask("stale", ApiKeys.SYNC_GROUP, v, syncRequest(new Member(m.group, m.memberId, m.generation + 5), v));
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.HEARTBEAT, "member, stale generation, unknown member", 0, 4, (s, v) -> {
            Member m = member(s, "conf-heartbeat-v" + v);
            s.ask("member", ApiKeys.HEARTBEAT, v, heartbeat(m, v));
            s.ask("stale", ApiKeys.HEARTBEAT, v, heartbeat(new Member(m.group, m.memberId, m.generation - 1), v));
            s.ask("unknown member", ApiKeys.HEARTBEAT, v, heartbeat(new Member(m.group, "conf-nobody", m.generation),
                    v));
            s.ask("unknown group", ApiKeys.HEARTBEAT, v, heartbeat(new Member("conf-no-group", "conf-nobody", 1), v));
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.LEAVE_GROUP, "member, unknown member", 0, 5, (s, v) -> {
            Member m = member(s, "conf-leave-v" + v);
            leave(s, m, v);
            leave(s, new Member(m.group, "conf-nobody", 0), v);
        }));
        shapes.add(Shape.script(ApiKeys.OFFSET_COMMIT, "standalone, member, stale, unknown topic", 2, 10, (s, v) -> {
            s.ask("standalone", ApiKeys.OFFSET_COMMIT, v, commit(s.target, v, "conf-commit-v" + v, -1, "",
                    Target.DATA));
            Member m = member(s, "conf-commit-member-v" + v);
            s.ask("member", ApiKeys.OFFSET_COMMIT, v, commit(s.target, v, m.group, m.generation, m.memberId,
                    Target.DATA));
            s.ask("stale", ApiKeys.OFFSET_COMMIT, v, commit(s.target, v, m.group, m.generation + 3, m.memberId,
                    Target.DATA));
            if (v < 10) {
                s.ask("unknown topic", ApiKeys.OFFSET_COMMIT, v, commit(s.target, v, "conf-commit-v" + v, -1, "",
                        "conf-missing"));
            }
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.OFFSET_FETCH, "chosen, all, unknown group and topic", 1, 10, (s, v) -> {
            String group = "conf-fetch-v" + v;
            s.ask("commit", ApiKeys.OFFSET_COMMIT, COMMIT, commit(s.target, COMMIT, group, -1, "", Target.DATA));
            s.ask("chosen", ApiKeys.OFFSET_FETCH, v, fetchOffsets(s.target, v, group, List.of(Target.DATA)));
            if (v >= 2) {
                s.ask("all", ApiKeys.OFFSET_FETCH, v, fetchOffsets(s.target, v, group, null));
            }
            s.ask("unknown group", ApiKeys.OFFSET_FETCH, v, fetchOffsets(s.target, v, "conf-no-group",
                    List.of(Target.DATA)));
            if (v < 10) {
                s.ask("unknown topic", ApiKeys.OFFSET_FETCH, v, fetchOffsets(s.target, v, group,
                        List.of("conf-missing")));
            }
        }));
        shapes.add(Shape.of(ApiKeys.LIST_GROUPS, "all", (t, v) -> new ListGroupsRequestData()));
        shapes.add(Shape.of(ApiKeys.LIST_GROUPS, "states filter", 4, 5, (t, v) -> new ListGroupsRequestData()
                .setStatesFilter(List.of("Stable", "Empty"))));
        shapes.add(Shape.of(ApiKeys.LIST_GROUPS, "types filter", 5, 5, (t, v) -> new ListGroupsRequestData()
                .setTypesFilter(List.of("classic"))));
        shapes.add(Shape.script(ApiKeys.DESCRIBE_GROUPS, "stable and unknown", 0, 6, (s, v) -> {
            Member m = member(s, "conf-describe-v" + v);
            DescribeGroupsRequestData r = new DescribeGroupsRequestData().setGroups(List.of(m.group, "conf-no-group"));
            s.ask("", ApiKeys.DESCRIBE_GROUPS, v, v >= 3 ? r.setIncludeAuthorizedOperations(true) : r);
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.DELETE_GROUPS, "empty, active, unknown", 0, 2, (s, v) -> {
            String empty = "conf-delete-empty-v" + v;
            s.ask("commit", ApiKeys.OFFSET_COMMIT, COMMIT, commit(s.target, COMMIT, empty, -1, "", Target.DATA));
            Member m = member(s, "conf-delete-active-v" + v);
            s.ask("", ApiKeys.DELETE_GROUPS, v, new DeleteGroupsRequestData().setGroupsNames(List.of(empty, m.group,
                    "conf-no-group")));
            leave(s, m, (short) 5);
        }));
        shapes.add(Shape.script(ApiKeys.OFFSET_DELETE, "empty group, subscribed topic, unknown group", 0, 0, (s, v) -> {
            String empty = "conf-offset-delete";
            s.ask("commit", ApiKeys.OFFSET_COMMIT, COMMIT, commit(s.target, COMMIT, empty, -1, "", Target.DATA));
            s.ask("empty group", ApiKeys.OFFSET_DELETE, v, offsetDelete(empty, Target.DATA));
            Member m = member(s, "conf-offset-delete-active");
            s.ask("commit active", ApiKeys.OFFSET_COMMIT, COMMIT, commit(s.target, COMMIT, m.group, m.generation,
                    m.memberId, Target.DATA));
            s.ask("subscribed topic", ApiKeys.OFFSET_DELETE, v, offsetDelete(m.group, Target.DATA));
            s.ask("unknown group", ApiKeys.OFFSET_DELETE, v, offsetDelete("conf-no-group", Target.DATA));
            leave(s, m, (short) 5);
        }));
        return shapes;
    }

    private static FindCoordinatorRequestData find(short v, byte keyType, String key) {
        FindCoordinatorRequestData r = new FindCoordinatorRequestData();
        if (v >= 1) {
            r.setKeyType(keyType);
        }
        return v >= 4 ? r.setCoordinatorKeys(List.of(key)) : r.setKey(key);
    }

    private static JoinGroupRequestData joinRequest(String group, String memberId, short v) {
        ByteBuffer subscription = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(
                List.of(Target.DATA)));
        byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        JoinGroupRequestData r = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(30_000)
                .setMemberId(memberId).setProtocolType("consumer").setProtocols(protocols);
        return v >= 1 ? r.setRebalanceTimeoutMs(30_000) : r;
    }

    /** Joins as a new member at {@code v} (rejoining with the given member id after MEMBER_ID_REQUIRED). */
    static Member join(Session s, String group, short v) throws Exception {
        JoinGroupResponseData r = (JoinGroupResponseData) s.ask("join", ApiKeys.JOIN_GROUP, v, joinRequest(group, "",
                v));
        if (r.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
            r = (JoinGroupResponseData) s.ask("rejoin", ApiKeys.JOIN_GROUP, v, joinRequest(group, r.memberId(), v));
        }
        s.note("join", "leader is the member", r.leader().equals(r.memberId()));
        return new Member(group, r.memberId(), r.generationId());
    }

    private static SyncGroupRequestData syncRequest(Member m, short v) {
        ByteBuffer assignment = ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                List.of(new org.apache.kafka.common.TopicPartition(Target.DATA, 0))));
        byte[] bytes = new byte[assignment.remaining()];
        assignment.get(bytes);
        SyncGroupRequestData r = new SyncGroupRequestData().setGroupId(m.group).setGenerationId(m.generation)
                .setMemberId(m.memberId).setAssignments(List.of(new SyncGroupRequestAssignment()
                        .setMemberId(m.memberId).setAssignment(bytes)));
        return v >= 5 ? r.setProtocolType("consumer").setProtocolName("range") : r;
    }

    static void sync(Session s, Member m, short v) throws Exception {
        s.ask("sync", ApiKeys.SYNC_GROUP, v, syncRequest(m, v));
    }

    /** A member that joined and synced at the fixed versions. */
    static Member member(Session s, String group) throws Exception {
        Member m = join(s, group, JOIN);
        sync(s, m, SYNC);
        return m;
    }

    private static HeartbeatRequestData heartbeat(Member m, short v) {
        return new HeartbeatRequestData().setGroupId(m.group).setGenerationId(m.generation).setMemberId(m.memberId);
    }

    static void leave(Session s, Member m, short v) throws Exception {
        LeaveGroupRequestData r = new LeaveGroupRequestData().setGroupId(m.group);
        if (v >= 3) {
            r.setMembers(List.of(new MemberIdentity().setMemberId(m.memberId)));
        } else {
            r.setMemberId(m.memberId);
        }
        s.ask("leave " + (m.memberId.startsWith("conf-") ? "unknown" : "member"), ApiKeys.LEAVE_GROUP, v, r);
    }

    private static OffsetCommitRequestData commit(Target t, short v, String group, int generation, String memberId,
            String topic) {
        OffsetCommitRequestTopic ct = new OffsetCommitRequestTopic().setPartitions(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(3)
                        .setCommittedMetadata("m")));
        if (v >= 10) {
            ct.setTopicId(t.topicId(topic));
        } else {
            ct.setName(topic);
        }
        OffsetCommitRequestData r = new OffsetCommitRequestData().setGroupId(group)
                .setGenerationIdOrMemberEpoch(generation).setMemberId(memberId).setTopics(List.of(ct));
        if (v <= 4) {
            r.setRetentionTimeMs(-1);
        }
        return r;
    }

    private static OffsetFetchRequestData fetchOffsets(Target t, short v, String group, List<String> topics) {
        if (v >= 8) {
            List<OffsetFetchRequestTopics> ts = topics == null ? null : topics.stream().map(name -> {
                OffsetFetchRequestTopics ft = new OffsetFetchRequestTopics().setPartitionIndexes(List.of(0, 1));
                return v >= 10 ? ft.setTopicId(t.topicId(name)) : ft.setName(name);
            }).toList();
            return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(group)
                    .setTopics(ts)));
        }
        return new OffsetFetchRequestData().setGroupId(group).setTopics(topics == null ? null : topics.stream()
                .map(name -> new OffsetFetchRequestTopic().setName(name).setPartitionIndexes(List.of(0, 1))).toList());
    }

    private static OffsetDeleteRequestData offsetDelete(String group, String topic) {
        OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestTopic().setName(topic).setPartitions(List.of(
                new OffsetDeleteRequestPartition().setPartitionIndex(0))));
        return new OffsetDeleteRequestData().setGroupId(group).setTopics(topics);
    }
}
