package io.aloft.broker.group;

import static io.aloft.broker.group.GroupTestKit.done;
import static io.aloft.broker.group.GroupTestKit.joinRequest;
import static io.aloft.broker.group.GroupTestKit.subscription;
import static io.aloft.broker.group.OffsetTest.commit;
import static io.aloft.broker.group.OffsetTest.fetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ReloadTest {

    private static final String G = "durable";

    @Test
    void restart_stableGroupWithOffsets_replayRestoresGenerationMembersAssignmentsOffsets() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "orders");
        JoinGroupResponseData m = members.get(0);
        kit.coordinator.commitOffsets(commit(G, m.memberId(), m.generationId(), "orders", 0, 100), (short) 9).join();
        kit.coordinator.commitOffsets(commit(G, m.memberId(), m.generationId(), "orders", 0, 150), (short) 9).join();
        kit.coordinator.commitOffsets(commit("simple", "", -1, "x", 3, 7), (short) 9).join();

        kit.restart();

        assertEquals(150, fetch(kit.coordinator, G, "orders", 0));
        assertEquals(7, fetch(kit.coordinator, "simple", "x", 3));
        DescribedGroup d = kit.coordinator.describeGroups(new DescribeGroupsRequestData().setGroups(List.of(G)),
                (short) 5).join().groups().get(0);
        assertEquals("Stable", d.groupState());
        assertEquals(2, d.members().size());
        assertEquals("range", d.protocolData());
        // Members carry on with the same generation and get their assignment back.
        assertEquals(Errors.NONE, kit.heartbeat(G, m.memberId(), m.generationId()));
        SyncGroupResponseData sync = kit.sync(G, m, Map.of()).join();
        assertArrayEquals(GroupTestKit.bytes("assigned-" + m.memberId()), sync.assignment());
        assertEquals(Errors.NONE, OffsetTest.commitError(kit.coordinator.commitOffsets(
                commit(G, m.memberId(), m.generationId(), "orders", 0, 200), (short) 9).join()));
    }

    @Test
    void restart_membersNeverComeBack_expireAndGroupGoesEmptyWithNextGeneration() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData m = kit.stableGroup(G, 1, "orders").get(0);
        kit.restart();

        kit.timer.advance(GroupTestKit.SESSION_MS);
        DescribedGroup d = kit.coordinator.describeGroups(new DescribeGroupsRequestData().setGroups(List.of(G)),
                (short) 5).join().groups().get(0);
        assertEquals("Empty", d.groupState());

        kit.restart();
        JoinGroupResponseData fresh = done(kit.join(joinRequest(G, kit.join(joinRequest(G, "", null,
                subscription("orders"))).join().memberId(), null, subscription("orders"))));
        assertEquals(m.generationId() + 2, fresh.generationId(), "the empty generation was persisted too");
    }

    @Test
    void restart_staticMemberReplaced_newIdSurvives() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData first = done(kit.join(joinRequest(G, "", "i-1", subscription("t"))));
        kit.sync(G, first, Map.of(first.memberId(), GroupTestKit.bytes("a"))).join();
        JoinGroupResponseData second = done(kit.join(joinRequest(G, "", "i-1", subscription("t"))));

        kit.restart();
        assertEquals(Errors.NONE, kit.heartbeat(G, second.memberId(), "i-1", second.generationId()));
        assertEquals(Errors.FENCED_INSTANCE_ID, kit.heartbeat(G, first.memberId(), "i-1", first.generationId()));
    }
}
