package io.aloft.broker.group;

import static io.aloft.broker.group.GroupTestKit.done;
import static io.aloft.broker.group.GroupTestKit.joinRequest;
import static io.aloft.broker.group.GroupTestKit.subscription;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class StaticMembershipTest {

    private static final String G = "static-group";

    /** Two static members ("a" leads, "b" follows) in a Stable group. */
    private static List<JoinGroupResponseData> stableStaticGroup(GroupTestKit kit) {
        List<CompletableFuture<JoinGroupResponseData>> joins = new ArrayList<>();
        for (String instance : List.of("a", "b")) {
            joins.add(kit.join(joinRequest(G, "", instance, subscription("t"))));
        }
        kit.timer.advance(200);
        List<JoinGroupResponseData> responses = joins.stream().map(GroupTestKit::done).toList();
        Map<String, byte[]> assignment = new HashMap<>();
        responses.forEach(r -> assignment.put(r.memberId(), GroupTestKit.bytes("for-" + r.memberId())));
        kit.sync(G, responses.get(1), Map.of());
        kit.sync(G, responses.get(0), assignment).join();
        return responses;
    }

    @Test
    void join_staticFollowerRestartsWithSameMetadata_newIdOldAssignmentNoRebalance() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        List<JoinGroupResponseData> members = stableStaticGroup(kit);
        JoinGroupResponseData leader = members.get(0);
        JoinGroupResponseData oldB = members.get(1);
        assertEquals(leader.memberId(), leader.leader());

        JoinGroupResponseData newB = done(kit.join(joinRequest(G, "", "b", subscription("t"))));
        assertEquals(Errors.NONE.code(), newB.errorCode());
        assertNotEquals(oldB.memberId(), newB.memberId());
        assertEquals(oldB.generationId(), newB.generationId(), "no new generation");
        assertEquals(Errors.NONE, kit.heartbeat(G, leader.memberId(), leader.generationId()), "no rebalance");

        SyncGroupResponseData sync = kit.sync(G, newB, Map.of()).join();
        assertArrayEquals(GroupTestKit.bytes("for-" + oldB.memberId()), sync.assignment(), "keeps its assignment");
        assertEquals(Errors.FENCED_INSTANCE_ID, kit.heartbeat(G, oldB.memberId(), "b", oldB.generationId()));
        assertEquals(Errors.NONE, kit.heartbeat(G, newB.memberId(), "b", newB.generationId()));
    }

    @Test
    void join_staticLeaderRestartsV9_skipAssignmentWithMemberList() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        JoinGroupResponseData oldLeader = stableStaticGroup(kit).get(0);

        JoinGroupResponseData newLeader = done(kit.join(joinRequest(G, "", "a", subscription("t"))));
        assertEquals(oldLeader.generationId(), newLeader.generationId());
        assertEquals(newLeader.memberId(), newLeader.leader());
        assertEquals(true, newLeader.skipAssignment());
        assertEquals(2, newLeader.members().size());
    }

    @Test
    void join_staticMemberChangesSubscription_rebalances() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        List<JoinGroupResponseData> members = stableStaticGroup(kit);
        JoinGroupResponseData leader = members.get(0);

        CompletableFuture<JoinGroupResponseData> newB = kit.join(joinRequest(G, "", "b", subscription("t", "u")));
        assertFalse(newB.isDone(), "waits for the rebalance");
        assertEquals(Errors.REBALANCE_IN_PROGRESS, kit.heartbeat(G, leader.memberId(), leader.generationId()));
        kit.join(joinRequest(G, leader.memberId(), "a", subscription("t")));
        assertEquals(leader.generationId() + 1, done(newB).generationId());
    }

    @Test
    void join_knownMemberIdWithOthersInstanceId_fenced() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        List<JoinGroupResponseData> members = stableStaticGroup(kit);
        JoinGroupResponseData r = kit.join(joinRequest(G, members.get(0).memberId(), "b", subscription("t"))).join();
        assertEquals(Errors.FENCED_INSTANCE_ID.code(), r.errorCode());
    }

    @Test
    void leaveGroup_byInstanceIdOnly_removesStaticMember() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 100));
        List<JoinGroupResponseData> members = stableStaticGroup(kit);
        var response = kit.coordinator.leaveGroup(new LeaveGroupRequestData().setGroupId(G).setMembers(List.of(
                new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("b"),
                new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("zzz"))), (short) 5).join();
        assertEquals(Errors.NONE.code(), response.members().get(0).errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), response.members().get(1).errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, kit.heartbeat(G, members.get(1).memberId(), "b", 1));
    }
}
