package io.aloft.broker.group;

import static io.aloft.broker.group.OffsetTest.commit;
import static io.aloft.broker.group.OffsetTest.fetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class GroupAdminTest {

    @Test
    void deleteGroups_emptyActiveAndUnknown_deletedNonEmptyNotFound() {
        GroupTestKit kit = new GroupTestKit();
        kit.coordinator.commitOffsets(commit("idle", "", -1, "t", 0, 9), (short) 9).join();
        kit.stableGroup("busy", 1, "t");

        DeleteGroupsResponseData r = kit.coordinator.deleteGroups(new DeleteGroupsRequestData()
                .setGroupsNames(List.of("idle", "busy", "ghost", "")), (short) 2).join();
        assertEquals(Errors.NONE.code(), r.results().find("idle").errorCode());
        assertEquals(Errors.NON_EMPTY_GROUP.code(), r.results().find("busy").errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), r.results().find("ghost").errorCode());
        assertEquals(Errors.INVALID_GROUP_ID.code(), r.results().find("").errorCode());
        assertEquals(-1, fetch(kit.coordinator, "idle", "t", 0));

        kit.restart();
        assertEquals(-1, fetch(kit.coordinator, "idle", "t", 0), "the deletion was persisted");
        assertEquals(List.of("busy"), listed(kit, List.of()));
    }

    @Test
    void listGroups_stateFilter_onlyMatchingStatesCaseInsensitive() {
        GroupTestKit kit = new GroupTestKit();
        kit.coordinator.commitOffsets(commit("idle", "", -1, "t", 0, 9), (short) 9).join();
        kit.stableGroup("busy", 1, "t");

        assertEquals(List.of("busy", "idle"), listed(kit, List.of()));
        assertEquals(List.of("busy"), listed(kit, List.of("stable")));
        assertEquals(List.of("idle"), listed(kit, List.of("Empty")));
        ListGroupsResponseData r = kit.coordinator.listGroups(new ListGroupsRequestData(), (short) 5).join();
        assertEquals("consumer", r.groups().get(0).protocolType());
        assertEquals("classic", r.groups().get(0).groupType());
        assertEquals(0, kit.coordinator.listGroups(new ListGroupsRequestData().setTypesFilter(List.of("consumer")),
                (short) 5).join().groups().size(), "no KIP-848 groups here");
    }

    private static List<String> listed(GroupTestKit kit, List<String> states) {
        return kit.coordinator.listGroups(new ListGroupsRequestData().setStatesFilter(states), (short) 4).join()
                .groups().stream().map(ListGroupsResponseData.ListedGroup::groupId).toList();
    }

    @Test
    void describeGroups_stableGroup_membersWithMetadataAndAssignment() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData m = kit.stableGroup("busy", 1, "orders").get(0);
        DescribedGroup d = kit.coordinator.describeGroups(
                new DescribeGroupsRequestData().setGroups(List.of("busy")), (short) 5).join().groups().get(0);
        assertEquals(Errors.NONE.code(), d.errorCode());
        assertEquals("Stable", d.groupState());
        assertEquals("consumer", d.protocolType());
        assertEquals("range", d.protocolData());
        assertEquals(1, d.members().size());
        assertEquals(m.memberId(), d.members().get(0).memberId());
        assertEquals("client", d.members().get(0).clientId());
        assertEquals("/127.0.0.1", d.members().get(0).clientHost());
        assertArrayEquals(GroupTestKit.subscription("orders"), d.members().get(0).memberMetadata());
        assertArrayEquals(GroupTestKit.bytes("assigned-" + m.memberId()), d.members().get(0).memberAssignment());
    }

    @Test
    void describeGroups_unknownGroup_deadBeforeV6NotFoundFromV6() {
        GroupTestKit kit = new GroupTestKit();
        DescribeGroupsRequestData req = new DescribeGroupsRequestData().setGroups(List.of("ghost"));
        DescribedGroup v5 = kit.coordinator.describeGroups(req, (short) 5).join().groups().get(0);
        assertEquals(Errors.NONE.code(), v5.errorCode());
        assertEquals("Dead", v5.groupState());
        DescribedGroup v6 = kit.coordinator.describeGroups(req, (short) 6).join().groups().get(0);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), v6.errorCode());
    }

    @Test
    void requests_partitionNotLoaded_notCoordinator() {
        GroupTestKit kit = new GroupTestKit();
        int partition = kit.coordinator.partitionFor("g");
        kit.coordinator.unloadPartition(partition);
        assertEquals(Errors.NOT_COORDINATOR.code(), kit.coordinator.heartbeat(new HeartbeatRequestData()
                .setGroupId("g").setMemberId("m").setGenerationId(1), (short) 4).join().errorCode());
        DescribeGroupsResponseData d = kit.coordinator.describeGroups(
                new DescribeGroupsRequestData().setGroups(List.of("g")), (short) 5).join();
        assertEquals(Errors.NOT_COORDINATOR.code(), d.groups().get(0).errorCode());
    }

    @Test
    void partitionFor_matchesKafkaHashing() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.OFFSETS_TOPIC_PARTITIONS_CONFIG, 50));
        // Kafka: Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions
        assertEquals(Math.abs("my-group".hashCode()) % 50, kit.coordinator.partitionFor("my-group"));
        assertEquals(Math.abs("console-consumer-1".hashCode()) % 50, kit.coordinator.partitionFor("console-consumer-1"));
        // "polygenelubricants".hashCode() is Integer.MIN_VALUE, which Kafka's abs maps to 0.
        assertEquals(0, kit.coordinator.partitionFor("polygenelubricants"));
    }
}
