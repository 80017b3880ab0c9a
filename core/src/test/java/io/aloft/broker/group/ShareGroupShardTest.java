package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.state.SharePartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Share groups (KIP-932) in the group coordinator over an in-memory log, driven by hand (manual
 * timer, shards on the calling thread): joins and epochs, the assignment spreading over members,
 * validation and fencing, leaving and session timeouts, state initialization, group type
 * conflicts, the admin APIs, and reloading from the log.
 */
class ShareGroupShardTest {

    static final int SESSION_MS = 45_000;

    final ManualGroupTimer timer = new ManualGroupTimer();
    final ConsumerGroupShardTest.Topics topics = new ConsumerGroupShardTest.Topics();
    final MemoryShareStatePersister persister = new MemoryShareStatePersister();
    final List<String> left = new ArrayList<>();
    MemoryGroupLog log = new MemoryGroupLog();
    GroupCoordinator coordinator;
    ShareGroupService shares;

    ShareGroupShardTest() {
        start(Map.of());
    }

    void start(Map<String, ?> shareOverrides) {
        coordinator = new GroupCoordinator(GroupCoordinatorConfig.fromProperties(Map.of()), log, timer,
                TopicIdResolver.NONE, topics);
        ShareGroupConfig config = ShareGroupConfig.fromProperties(shareOverrides);
        shares = coordinator.enableShareGroups(config, ShareGroupSettingsSource.fixed(config.brokerDefaults()),
                persister, (group, member) -> left.add(group + "/" + member));
        coordinator.loadAll();
    }

    void restart() {
        coordinator.close();
        start(Map.of());
    }

    static ShareGroupHeartbeatRequestData join(String group, String member, String... topics) {
        return new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setSubscribedTopicNames(List.of(topics));
    }

    static ShareGroupHeartbeatRequestData beat(String group, String member, int epoch) {
        return new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch);
    }

    ShareGroupHeartbeatResponseData send(ShareGroupHeartbeatRequestData req) {
        return shares.heartbeat(req, "client", "/127.0.0.1").join();
    }

    ShareGroupHeartbeatResponseData ok(ShareGroupHeartbeatRequestData req) {
        ShareGroupHeartbeatResponseData r = send(req);
        assertEquals(Errors.NONE.code(), r.errorCode(), r.errorMessage());
        return r;
    }

    static Map<Uuid, Set<Integer>> assignment(ShareGroupHeartbeatResponseData r) {
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        r.assignment().topicPartitions().forEach(tp -> out.put(tp.topicId(), new HashSet<>(tp.partitions())));
        return out;
    }

    ShareGroupDescribeResponseData.DescribedGroup describe(String group) {
        return shares.describe(new ShareGroupDescribeRequestData().setGroupIds(List.of(group))).join().groups().get(0);
    }

    static int count(Map<Uuid, Set<Integer>> a) {
        return a.values().stream().mapToInt(Set::size).sum();
    }

    @Test
    void join_firstMember_getsEveryPartitionOnceItsStateIsInitialized() {
        Uuid t = topics.create("t", 3);
        ShareGroupHeartbeatResponseData r = ok(join("g", "m1", "t"));
        assertEquals("m1", r.memberId());
        assertEquals(1, r.memberEpoch());
        assertEquals(5_000, r.heartbeatIntervalMs());
        assertEquals(Map.of(), assignment(r), "nothing is assigned before its state is initialized");
        assertEquals(Set.of(new SharePartitionKey("g", t, 0), new SharePartitionKey("g", t, 1),
                new SharePartitionKey("g", t, 2)), Set.copyOf(persister.initialized()));
        ShareGroupDirectory.ShareGroupSummary summary = shares.describe("g").join().orElseThrow();
        assertEquals(Map.of(t, Set.of(0, 1, 2)), summary.initializedPartitions());
        assertEquals("Stable", summary.state());
        assertEquals(2, summary.groupEpoch(), "initializing bumped the group epoch");

        ShareGroupHeartbeatResponseData next = ok(beat("g", "m1", 1));
        assertEquals(2, next.memberEpoch());
        assertEquals(Map.of(t, Set.of(0, 1, 2)), assignment(next));

        // A plain heartbeat changes nothing: no assignment in the answer, nothing initialized again.
        ShareGroupHeartbeatResponseData again = ok(beat("g", "m1", 2));
        assertEquals(2, again.memberEpoch());
        assertNull(again.assignment());
        assertEquals(3, persister.initialized().size());
    }

    @Test
    void secondMember_bumpsEpoch_firstMovesToNewTargetAtItsNextHeartbeat() {
        Uuid t = topics.create("t", 4);
        ok(join("g", "a", "t"));
        assertEquals(4, count(assignment(ok(beat("g", "a", 1)))));
        ShareGroupHeartbeatResponseData b = ok(join("g", "b", "t"));
        assertEquals(3, b.memberEpoch());
        assertEquals(2, count(assignment(b)));
        ShareGroupDescribeResponseData.DescribedGroup d = describe("g");
        assertEquals(3, d.groupEpoch());
        assertEquals(3, d.assignmentEpoch());
        assertEquals(2, d.members().stream().filter(m -> m.memberId().equals("a")).findFirst().orElseThrow()
                .memberEpoch(), "a has not heartbeated since");

        ShareGroupHeartbeatResponseData a = ok(beat("g", "a", 2));
        assertEquals(3, a.memberEpoch());
        Map<Uuid, Set<Integer>> together = new HashMap<>(assignment(a));
        assignment(b).forEach((topic, p) -> together.merge(topic, p, (x, y) -> {
            Set<Integer> s = new HashSet<>(x);
            assertTrue(s.stream().noneMatch(y::contains), "no partition twice while members <= partitions");
            s.addAll(y);
            return s;
        }));
        assertEquals(Map.of(t, Set.of(0, 1, 2, 3)), together);
    }

    @Test
    void moreMembersThanPartitions_everyMemberGetsOneAndPartitionsAreShared() {
        Uuid t = topics.create("t", 2);
        List<String> members = List.of("m1", "m2", "m3", "m4", "m5");
        members.forEach(m -> ok(join("g", m, "t")));
        Map<Integer, Integer> perPartition = new HashMap<>();
        int epoch = describe("g").groupEpoch();
        for (String m : members) {
            ShareGroupHeartbeatResponseData r = send(beat("g", m, describe("g").members().stream()
                    .filter(x -> x.memberId().equals(m)).findFirst().orElseThrow().memberEpoch()));
            assertEquals(epoch, r.memberEpoch());
            Map<Uuid, Set<Integer>> a = r.assignment() == null ? currentOf(m) : assignment(r);
            assertEquals(1, count(a), m + " gets one partition");
            a.get(t).forEach(p -> perPartition.merge(p, 1, Integer::sum));
        }
        assertEquals(Map.of(0, 3, 1, 2), perPartition);
    }

    private Map<Uuid, Set<Integer>> currentOf(String member) {
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        describe("g").members().stream().filter(x -> x.memberId().equals(member)).findFirst().orElseThrow()
                .assignment().topicPartitions().forEach(tp -> out.put(tp.topicId(), new HashSet<>(tp.partitions())));
        return out;
    }

    @Test
    void onlySubscribersGetATopicsPartitions() {
        Uuid t1 = topics.create("t1", 2);
        Uuid t2 = topics.create("t2", 2);
        ok(join("g", "a", "t1"));
        ShareGroupHeartbeatResponseData b = ok(join("g", "b", "t2"));
        assertEquals(Map.of(), assignment(b), "t2's state was not initialized yet");
        ShareGroupHeartbeatResponseData b2 = ok(beat("g", "b", b.memberEpoch()));
        assertEquals(Map.of(t2, Set.of(0, 1)), assignment(b2));
        ShareGroupHeartbeatResponseData a = ok(beat("g", "a", 1));
        assertEquals(b2.memberEpoch(), a.memberEpoch());
        assertEquals(Map.of(t1, Set.of(0, 1)), assignment(a));
        assertNull(ok(beat("g", "a", a.memberEpoch())).assignment(), "unchanged: not sent again");
    }

    @Test
    void invalidRequests_answerInvalidRequest() {
        topics.create("t", 1);
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", "", "t")).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", "m")).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", "m", "t").setSubscribedTopicNames(null))
                .errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", "m", "t").setMemberEpoch(-2)).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("", "m", "t")).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", "m", "t").setRackId("")).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), send(join("g", " ", "t")).errorCode());
        assertEquals("SubscribedTopicNames must be set in first request.", send(join("g", "m")).errorMessage());
    }

    @Test
    void unknownGroupMemberAndWrongEpoch_areRefused() {
        topics.create("t", 1);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), send(beat("nope", "m", 1)).errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), send(beat("nope", "m", -1)).errorCode());
        ok(join("g", "m", "t"));
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), send(beat("g", "other", 1)).errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), send(beat("g", "other", -1)).errorCode());
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), send(beat("g", "m", 7)).errorCode());
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), send(beat("g", "m", 2)).errorCode());
        // The epoch before the current one is accepted (the answer that moved the member on may be lost).
        ok(join("g", "m2", "t"));
        assertEquals(3, ok(beat("g", "m", 1)).memberEpoch());
        assertEquals(3, ok(beat("g", "m", 1)).memberEpoch());
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), send(beat("g", "m2", 1)).errorCode(), "m2 had no epoch 1");
        // A fenced member rejoins with epoch 0 and its id, and goes on.
        assertEquals(3, ok(join("g", "m", "t")).memberEpoch());
        assertTrue(left.isEmpty(), "an epoch error does not remove the member");
    }

    @Test
    void leave_removesMember_tellsListener_othersGetItsPartitions() {
        Uuid t = topics.create("t", 2);
        ok(join("g", "a", "t"));
        ok(join("g", "b", "t"));
        assertEquals(1, count(assignment(ok(beat("g", "a", 1)))), "a gave one partition to b");
        ShareGroupHeartbeatResponseData gone = ok(beat("g", "b", -1));
        assertEquals(-1, gone.memberEpoch());
        assertEquals("b", gone.memberId());
        assertEquals(List.of("g/b"), left);
        ShareGroupHeartbeatResponseData a = ok(beat("g", "a", 3));
        assertEquals(4, a.memberEpoch());
        assertEquals(Map.of(t, Set.of(0, 1)), assignment(a));
        ok(beat("g", "a", -1));
        assertEquals("Empty", describe("g").groupState());
    }

    @Test
    void sessionTimeout_removesSilentMember() {
        topics.create("t", 2);
        ok(join("g", "a", "t"));
        ok(join("g", "b", "t"));
        timer.advance(SESSION_MS - 1);
        ok(beat("g", "a", 1));
        timer.advance(2);
        assertEquals(List.of("g/b"), left);
        assertEquals(List.of("a"), describe("g").members().stream().map(m -> m.memberId()).toList());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), send(beat("g", "b", 2)).errorCode());
        timer.advance(SESSION_MS);
        assertEquals(List.of("g/b", "g/a"), left);
        assertEquals("Empty", describe("g").groupState());
    }

    @Test
    void maxSize_refusesOneMore() {
        coordinator.close();
        start(Map.of(ShareGroupConfig.MAX_SIZE_CONFIG, "2"));
        topics.create("t", 1);
        ok(join("g", "a", "t"));
        ok(join("g", "b", "t"));
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED.code(), send(join("g", "c", "t")).errorCode());
        ok(join("g", "a", "t")); // a member rejoining is no new member
    }

    @Test
    void subscriptionNullIsUnchanged_newListBumpsEpoch() {
        Uuid t1 = topics.create("t1", 1);
        Uuid t2 = topics.create("t2", 1);
        ok(join("g", "a", "t1"));
        ShareGroupHeartbeatResponseData first = ok(beat("g", "a", 1).setSubscribedTopicNames(null));
        assertEquals(Map.of(t1, Set.of(0)), assignment(first));
        ShareGroupHeartbeatResponseData same = ok(beat("g", "a", 2).setSubscribedTopicNames(null));
        assertEquals(2, same.memberEpoch());
        ShareGroupHeartbeatResponseData moved = ok(beat("g", "a", 2).setSubscribedTopicNames(List.of("t2")));
        assertEquals(3, moved.memberEpoch());
        assertEquals(Map.of(), assignment(moved), "t1 no longer, t2 not initialized yet");
        ShareGroupHeartbeatResponseData now = ok(beat("g", "a", 3));
        assertEquals(4, now.memberEpoch());
        assertEquals(Map.of(t2, Set.of(0)), assignment(now));
        assertFalse(assignment(now).containsKey(t1));
    }

    @Test
    void topicCreatedLater_isAssignedAtNextHeartbeat() {
        ShareGroupHeartbeatResponseData r = ok(join("g", "a", "later"));
        assertTrue(assignment(r).isEmpty());
        Uuid t = topics.create("later", 2);
        ShareGroupHeartbeatResponseData seen = ok(beat("g", "a", r.memberEpoch()));
        assertEquals(r.memberEpoch() + 1, seen.memberEpoch());
        ShareGroupHeartbeatResponseData next = ok(beat("g", "a", seen.memberEpoch()));
        assertEquals(seen.memberEpoch() + 1, next.memberEpoch());
        assertEquals(Map.of(t, Set.of(0, 1)), assignment(next));
    }

    @Test
    void failedInitialization_isRetriedAtALaterHeartbeat() {
        Uuid t = topics.create("t", 1);
        persister.failInitialize = true;
        ok(join("g", "a", "t"));
        assertTrue(shares.describe("g").join().orElseThrow().initializedPartitions().isEmpty());
        persister.failInitialize = false;
        ok(beat("g", "a", 1));
        assertEquals(Map.of(t, Set.of(0)), shares.describe("g").join().orElseThrow().initializedPartitions());
    }

    @Test
    void groupTypes_doNotMix() {
        topics.create("t", 1);
        ConsumerGroupHeartbeatRequestData consumerJoin = new ConsumerGroupHeartbeatRequestData().setGroupId("cg")
                .setMemberId("c1").setMemberEpoch(0).setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of("t")).setTopicPartitions(List.of());
        assertEquals(Errors.NONE.code(), coordinator.consumerGroupHeartbeat(consumerJoin, (short) 1, "c", "/h")
                .join().errorCode());
        ShareGroupHeartbeatResponseData onConsumer = send(join("cg", "s1", "t"));
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), onConsumer.errorCode());
        assertEquals("Group cg is not a share group.", onConsumer.errorMessage());
        assertEquals("Group cg is not a share group.", describe("cg").errorMessage());

        ok(join("sg", "s1", "t"));
        var onShare = coordinator.consumerGroupHeartbeat(consumerJoin.duplicate().setGroupId("sg"), (short) 1, "c",
                "/h").join();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), onShare.errorCode());
        assertEquals("Group sg is not a consumer group.", onShare.errorMessage());
        var cgd = coordinator.consumerGroupDescribe(new ConsumerGroupDescribeRequestData().setGroupIds(List.of("sg")),
                (short) 1).join().groups().get(0);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), cgd.errorCode());
        var dg = coordinator.describeGroups(new DescribeGroupsRequestData().setGroups(List.of("sg")), (short) 6)
                .join().groups().get(0);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), dg.errorCode());
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        JoinGroupResponseData classic = coordinator.joinGroup(new JoinGroupRequestData().setGroupId("sg")
                .setMemberId("").setProtocolType("consumer").setProtocols(protocols).setSessionTimeoutMs(30_000)
                .setRebalanceTimeoutMs(30_000), (short) 9, "c", "/h").join();
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), classic.errorCode());
        var commit = coordinator.commitOffsets(new OffsetCommitRequestData().setGroupId("sg")
                .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                                new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                                        .setCommittedOffset(1))))), (short) 8).join();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(),
                commit.topics().get(0).partitions().get(0).errorCode());
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> shares.describe("cg").join());
        assertInstanceOf(GroupIdNotFoundException.class, e.getCause());
    }

    @Test
    void listGroups_showsShareGroupsByTypeAndState() {
        topics.create("t", 1);
        ok(join("s-stable", "a", "t"));
        ok(join("s-empty", "a", "t"));
        ok(beat("s-empty", "a", -1));
        ListGroupsResponseData all = coordinator.listGroups(new ListGroupsRequestData(), (short) 5).join();
        Map<String, String> states = new HashMap<>();
        for (ListGroupsResponseData.ListedGroup g : all.groups()) {
            assertEquals("share", g.groupType());
            assertEquals("share", g.protocolType());
            states.put(g.groupId(), g.groupState());
        }
        assertEquals(Map.of("s-stable", "Stable", "s-empty", "Empty"), states);
        assertEquals(List.of("s-empty"), coordinator.listGroups(new ListGroupsRequestData()
                .setStatesFilter(List.of("empty")).setTypesFilter(List.of("share")), (short) 5).join().groups()
                .stream().map(ListGroupsResponseData.ListedGroup::groupId).toList());
        assertTrue(coordinator.listGroups(new ListGroupsRequestData().setTypesFilter(List.of("consumer")), (short) 5)
                .join().groups().isEmpty());
    }

    @Test
    void deleteGroups_onlyEmpty_deletesShareState() {
        Uuid t = topics.create("t", 2);
        ok(join("g", "a", "t"));
        assertEquals(Errors.NON_EMPTY_GROUP.code(), deleteGroup("g"));
        ok(beat("g", "a", -1));
        assertEquals(Errors.NONE.code(), deleteGroup("g"));
        assertEquals(Set.of(new SharePartitionKey("g", t, 0), new SharePartitionKey("g", t, 1)),
                Set.copyOf(persister.deleted()));
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
        assertEquals(Optional.empty(), shares.describe("g").join());
        restart();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode(), "deletion is durable");
    }

    short deleteGroup(String group) {
        return coordinator.deleteGroups(new DeleteGroupsRequestData().setGroupsNames(List.of(group)), (short) 2).join()
                .results().find(group).errorCode();
    }

    @Test
    void restart_keepsGroupMembersEpochsAndInitializedPartitions() {
        Uuid t = topics.create("t", 2);
        ok(join("g", "a", "t"));
        ok(join("g", "b", "t").setRackId("r1"));
        ShareGroupDescribeResponseData.DescribedGroup before = describe("g");
        restart();
        ShareGroupDescribeResponseData.DescribedGroup after = describe("g");
        assertEquals(before, after);
        assertEquals(Map.of(t, Set.of(0, 1)), shares.describe("g").join().orElseThrow().initializedPartitions());
        int b = after.members().stream().filter(m -> m.memberId().equals("b")).findFirst().orElseThrow()
                .memberEpoch();
        assertEquals(b, ok(beat("g", "b", b)).memberEpoch());
        // Restored members get a fresh session timeout.
        timer.advance(SESSION_MS + 1);
        assertEquals(Set.of("g/a", "g/b"), Set.copyOf(left));
    }

    @Test
    void directory_updateInitialized() {
        Uuid t = topics.create("t", 2);
        Uuid other = Uuid.randomUuid();
        shares.updateInitialized("fresh", Map.of(t, Set.of(0), other, Set.of(3)), Set.of()).join();
        ShareGroupDirectory.ShareGroupSummary s = shares.describe("fresh").join().orElseThrow();
        assertEquals("Empty", s.state());
        assertEquals(Map.of(t, Set.of(0), other, Set.of(3)), s.initializedPartitions());
        shares.updateInitialized("fresh", Map.of(), Set.of(other)).join();
        assertEquals(Map.of(t, Set.of(0)), shares.describe("fresh").join().orElseThrow().initializedPartitions());
        // The group it made is a share group like any: a member may join it.
        ok(join("fresh", "a", "t"));
        CompletionException busy = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> shares.updateInitialized("fresh", Map.of(t, Set.of(1)), Set.of()).join());
        assertInstanceOf(GroupNotEmptyException.class, busy.getCause());
        shares.updateInitialized("none", Map.of(), Set.of(t)).join();
        assertEquals(Optional.empty(), shares.describe("none").join(), "nothing added: no group made");
        assertNotNull(shares.describe("fresh").join().orElseThrow());
    }
}
