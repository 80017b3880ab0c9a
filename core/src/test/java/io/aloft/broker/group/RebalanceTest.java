package io.aloft.broker.group;

import static io.aloft.broker.group.GroupTestKit.done;
import static io.aloft.broker.group.GroupTestKit.joinRequest;
import static io.aloft.broker.group.GroupTestKit.subscription;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class RebalanceTest {

    private static final String G = "group-a";

    @Test
    void join_threeMembersWithinInitialDelay_oneGenerationOneLeaderAssignmentsDistributed() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 3000));
        List<CompletableFuture<JoinGroupResponseData>> joins = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            joins.add(kit.joinNew(G, "orders"));
        }
        kit.timer.advance(3000);
        // Members arrived during the first delay, so the coordinator waits one more delay for stragglers.
        joins.forEach(f -> assertFalse(f.isDone(), "the initial delay was extended"));
        kit.timer.advance(2999);
        joins.forEach(f -> assertFalse(f.isDone(), "the extended delay has not passed"));
        kit.timer.advance(1);

        List<JoinGroupResponseData> responses = joins.stream().map(GroupTestKit::done).toList();
        Set<String> memberIds = new HashSet<>();
        for (JoinGroupResponseData r : responses) {
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertEquals(1, r.generationId());
            assertEquals("range", r.protocolName());
            assertEquals(responses.get(0).leader(), r.leader());
            memberIds.add(r.memberId());
        }
        assertEquals(3, memberIds.size());
        JoinGroupResponseData leader = responses.stream().filter(r -> r.memberId().equals(r.leader())).findFirst()
                .orElseThrow();
        assertEquals(3, leader.members().size(), "the leader gets the member list");
        responses.stream().filter(r -> r != leader).forEach(r -> assertTrue(r.members().isEmpty()));

        List<JoinGroupResponseData> followers = responses.stream().filter(r -> r != leader).toList();
        CompletableFuture<SyncGroupResponseData> followerSync = kit.sync(G, followers.get(0), Map.of());
        assertFalse(followerSync.isDone(), "a follower waits for the leader's assignment");

        Map<String, byte[]> assignment = new HashMap<>();
        memberIds.forEach(id -> assignment.put(id, GroupTestKit.bytes("for-" + id)));
        SyncGroupResponseData leaderSync = kit.sync(G, leader, assignment).join();
        assertArrayEquals(GroupTestKit.bytes("for-" + leader.memberId()), leaderSync.assignment());
        assertArrayEquals(GroupTestKit.bytes("for-" + followers.get(0).memberId()), followerSync.join().assignment());
        SyncGroupResponseData late = kit.sync(G, followers.get(1), Map.of()).join();
        assertArrayEquals(GroupTestKit.bytes("for-" + followers.get(1).memberId()), late.assignment());
        assertEquals(Errors.NONE, kit.heartbeat(G, leader.memberId(), 1));
    }

    @Test
    void join_v4WithoutMemberId_memberIdRequiredWithGeneratedId() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData first = kit.join(joinRequest(G, "", null, subscription("t"))).join();
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
        assertTrue(first.memberId().startsWith("client-"), first.memberId());

        JoinGroupResponseData second = done(kit.join(joinRequest(G, first.memberId(), null, subscription("t"))));
        assertEquals(Errors.NONE.code(), second.errorCode());
        assertEquals(first.memberId(), second.memberId());
        assertEquals(first.memberId(), second.leader());
        assertEquals(1, second.generationId());
    }

    @Test
    void join_v3WithoutMemberId_joinsAtOnce() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData r = kit.coordinator.joinGroup(joinRequest(G, "", null, subscription("t")), (short) 3,
                "client", "/127.0.0.1").join();
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(1, r.generationId());
    }

    @Test
    void join_unknownMemberIdOrBadSession_rejected() {
        GroupTestKit kit = new GroupTestKit();
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(),
                kit.join(joinRequest(G, "nobody", null, subscription("t"))).join().errorCode());
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), kit.join(joinRequest(G, "", null, subscription("t"))
                .setSessionTimeoutMs(1000)).join().errorCode());
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), kit.join(joinRequest(G, "", null, subscription("t"))
                .setSessionTimeoutMs(1_800_001)).join().errorCode());
        assertEquals(Errors.INVALID_GROUP_ID.code(),
                kit.join(joinRequest("", "", null, subscription("t"))).join().errorCode());
    }

    @Test
    void join_groupAtMaxSize_groupMaxSizeReached() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.MAX_SIZE_CONFIG, "2"));
        kit.stableGroup(G, 2, "t");
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED.code(),
                kit.join(joinRequest(G, "", null, subscription("t"))).join().errorCode());
    }

    @Test
    void join_noCommonProtocol_inconsistentGroupProtocol() {
        GroupTestKit kit = new GroupTestKit();
        kit.stableGroup(G, 1, "t");
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(),
                kit.join(joinRequest(G, "", null, subscription("t"), "roundrobin")).join().errorCode());
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(),
                kit.join(joinRequest(G, "", null, subscription("t")).setProtocolType("connect")).join().errorCode());
    }

    @Test
    void join_membersPreferDifferentProtocols_commonProtocolWithMostVotesChosen() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        byte[] md = subscription("t");
        List<CompletableFuture<JoinGroupResponseData>> joins = new ArrayList<>();
        // Everyone supports "range" and "sticky"; two of three prefer "sticky"; "coop" is not common.
        for (String[] prefs : List.of(new String[] {"range", "sticky", "coop"}, new String[] {"sticky", "range"},
                new String[] {"coop", "sticky", "range"})) {
            String id = kit.join(joinRequest(G, "", null, md, prefs)).join().memberId();
            joins.add(kit.join(joinRequest(G, id, null, md, prefs)));
        }
        kit.timer.advance(200);
        joins.forEach(f -> assertEquals("sticky", done(f).protocolName()));
    }

    @Test
    void leaveGroup_oneOfTwo_remainingMemberRebalancesAlone() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "t");
        JoinGroupResponseData stays = members.get(0);
        JoinGroupResponseData leaves = members.get(1);

        LeaveGroupResponseData left = kit.coordinator.leaveGroup(new LeaveGroupRequestData().setGroupId(G)
                .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(leaves.memberId()))),
                (short) 5).join();
        assertEquals(Errors.NONE.code(), left.members().get(0).errorCode());
        assertEquals(Errors.REBALANCE_IN_PROGRESS, kit.heartbeat(G, stays.memberId(), stays.generationId()));

        JoinGroupResponseData rejoined = done(kit.join(joinRequest(G, stays.memberId(), null, subscription("t"))));
        assertEquals(stays.generationId() + 1, rejoined.generationId());
        assertEquals(stays.memberId(), rejoined.leader());
        assertEquals(1, rejoined.members().size());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, leaves.memberId(), rejoined.generationId()));
    }

    @Test
    void leaveGroup_v0UnknownMember_topLevelError() {
        GroupTestKit kit = new GroupTestKit();
        kit.stableGroup(G, 1, "t");
        LeaveGroupResponseData r = kit.coordinator.leaveGroup(
                new LeaveGroupRequestData().setGroupId(G).setMemberId("nobody"), (short) 0).join();
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), r.errorCode());
    }

    @Test
    void heartbeat_sessionExpires_memberRemovedAndOthersRebalance() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "t");
        JoinGroupResponseData alive = members.get(0);
        JoinGroupResponseData silent = members.get(1);

        for (int i = 0; i < 2; i++) {
            kit.timer.advance(4000);
            assertEquals(Errors.NONE, kit.heartbeat(G, alive.memberId(), alive.generationId()));
        }
        kit.timer.advance(4000);
        // The silent member's 10 s session ended at 10 s; the live one heartbeated every 4 s.
        assertEquals(Errors.REBALANCE_IN_PROGRESS, kit.heartbeat(G, alive.memberId(), alive.generationId()));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, silent.memberId(), silent.generationId()));
    }

    @Test
    void heartbeat_errors_illegalGenerationUnknownMember() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData m = kit.stableGroup(G, 1, "t").get(0);
        assertEquals(Errors.ILLEGAL_GENERATION, kit.heartbeat(G, m.memberId(), m.generationId() - 1));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, "nobody", m.generationId()));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat("no-such-group", "nobody", 1));
    }

    @Test
    void rebalanceTimeout_memberDoesNotRejoin_removedAndRestGetNewGeneration() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "t");
        JoinGroupResponseData active = members.get(0);
        JoinGroupResponseData silent = members.get(1);

        CompletableFuture<JoinGroupResponseData> rejoin = kit.join(joinRequest(G, active.memberId(), null,
                subscription("t", "u")));
        // The silent member keeps heartbeating (so its session holds) but never rejoins.
        for (int elapsed = 0; elapsed < GroupTestKit.REBALANCE_MS - 5000; elapsed += 5000) {
            kit.timer.advance(5000);
            assertEquals(Errors.REBALANCE_IN_PROGRESS, kit.heartbeat(G, silent.memberId(), silent.generationId()));
            assertFalse(rejoin.isDone());
        }
        kit.timer.advance(5000);

        JoinGroupResponseData r = done(rejoin);
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(active.generationId() + 1, r.generationId());
        assertEquals(1, r.members().size());
        assertEquals(active.memberId(), r.leader());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, silent.memberId(), r.generationId()));
    }

    @Test
    void sync_wrongGenerationOrDuringJoin_rejected() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "t");
        JoinGroupResponseData m = members.get(0);
        SyncGroupResponseData stale = kit.sync(G, new JoinGroupResponseData().setMemberId(m.memberId())
                .setGenerationId(m.generationId() - 1).setProtocolName("range"), Map.of()).join();
        assertEquals(Errors.ILLEGAL_GENERATION.code(), stale.errorCode());

        kit.join(joinRequest(G, m.memberId(), null, subscription("t", "new-topic")));
        SyncGroupResponseData during = kit.sync(G, members.get(1), Map.of()).join();
        assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), during.errorCode());
    }

    @Test
    void sync_followerWaitingWhenMemberLeaves_toldToRejoin() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 10));
        CompletableFuture<JoinGroupResponseData> a = kit.joinNew(G, "t");
        CompletableFuture<JoinGroupResponseData> b = kit.joinNew(G, "t");
        CompletableFuture<JoinGroupResponseData> c = kit.joinNew(G, "t");
        kit.timer.advance(20);
        JoinGroupResponseData leader = List.of(done(a), done(b), done(c)).stream()
                .filter(r -> r.leader().equals(r.memberId())).findFirst().orElseThrow();
        JoinGroupResponseData follower = done(a) == leader ? done(b) : done(a);
        JoinGroupResponseData leaving = done(c) == leader ? done(b) : done(c);
        CompletableFuture<SyncGroupResponseData> waiting = kit.sync(G, follower, Map.of());

        kit.coordinator.leaveGroup(new LeaveGroupRequestData().setGroupId(G).setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setMemberId(leaving.memberId()))), (short) 5).join();
        assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), waiting.join().errorCode());
        assertNotEquals(leader.memberId(), leaving.memberId());
    }

    /** Forms generation 1 of two members (no initial delay) and returns {leader, follower}, not yet synced. */
    private static List<JoinGroupResponseData> joinedPair(GroupTestKit kit) {
        CompletableFuture<JoinGroupResponseData> a = kit.joinNew(G, "t");
        CompletableFuture<JoinGroupResponseData> b = kit.joinNew(G, "t");
        kit.timer.advance(20);
        JoinGroupResponseData leader = done(a).memberId().equals(done(a).leader()) ? done(a) : done(b);
        JoinGroupResponseData follower = leader == done(a) ? done(b) : done(a);
        return List.of(leader, follower);
    }

    @Test
    void syncTimeout_leaderNeverSyncs_removedAndWaitingFollowerToldToRejoin() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 10));
        List<JoinGroupResponseData> pair = joinedPair(kit);
        JoinGroupResponseData leader = pair.get(0);
        JoinGroupResponseData follower = pair.get(1);
        CompletableFuture<SyncGroupResponseData> waiting = kit.sync(G, follower, Map.of());

        // The leader heartbeats (its session holds) but never sends SyncGroup.
        heartbeatWhileTimePasses(kit, GroupTestKit.REBALANCE_MS - 5000, leader);
        assertFalse(waiting.isDone(), "the leader still has time to sync");
        kit.timer.advance(5000);
        assertTrue(waiting.isDone(), "the follower was answered when the leader's time to sync ran out");
        assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), waiting.join().errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, leader.memberId(), leader.generationId()),
                "the silent leader was removed");

        JoinGroupResponseData rejoined = done(kit.join(joinRequest(G, follower.memberId(), null, subscription("t"))));
        assertEquals(Errors.NONE.code(), rejoined.errorCode());
        assertEquals(follower.memberId(), rejoined.leader(), "the remaining member leads the next generation");
        assertEquals(1, rejoined.members().size());
        assertEquals(follower.generationId() + 1, rejoined.generationId());
    }

    @Test
    void syncTimeout_followerNeverSyncs_removedAfterGroupWentStable() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 10));
        List<JoinGroupResponseData> pair = joinedPair(kit);
        JoinGroupResponseData leader = pair.get(0);
        JoinGroupResponseData follower = pair.get(1);
        SyncGroupResponseData synced = kit.sync(G, leader, Map.of(leader.memberId(), GroupTestKit.bytes("l"),
                follower.memberId(), GroupTestKit.bytes("f"))).join();
        assertEquals(Errors.NONE.code(), synced.errorCode());

        // The follower heartbeats (its session holds) but never sends SyncGroup: it has no assignment.
        heartbeatWhileTimePasses(kit, GroupTestKit.REBALANCE_MS - 5000, leader, follower);
        kit.timer.advance(5000);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, follower.memberId(), follower.generationId()));
        assertEquals(Errors.REBALANCE_IN_PROGRESS, kit.heartbeat(G, leader.memberId(), leader.generationId()),
                "the rest rebalance without it");
    }

    @Test
    void syncTimeout_everyoneSynced_nothingHappens() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 10));
        List<JoinGroupResponseData> pair = joinedPair(kit);
        JoinGroupResponseData leader = pair.get(0);
        JoinGroupResponseData follower = pair.get(1);
        CompletableFuture<SyncGroupResponseData> followerSync = kit.sync(G, follower, Map.of());
        kit.sync(G, leader, Map.of(leader.memberId(), GroupTestKit.bytes("l"), follower.memberId(),
                GroupTestKit.bytes("f"))).join();
        assertArrayEquals(GroupTestKit.bytes("f"), followerSync.join().assignment());
        heartbeatWhileTimePasses(kit, 2 * GroupTestKit.REBALANCE_MS, leader, follower);
    }

    /** Advances the clock in 5 s steps for {@code millis}, each member heartbeating successfully after each step. */
    private static void heartbeatWhileTimePasses(GroupTestKit kit, int millis, JoinGroupResponseData... members) {
        for (int elapsed = 0; elapsed < millis; elapsed += 5000) {
            kit.timer.advance(5000);
            for (JoinGroupResponseData m : members) {
                assertEquals(Errors.NONE, kit.heartbeat(G, m.memberId(), m.generationId()));
            }
        }
    }
}
