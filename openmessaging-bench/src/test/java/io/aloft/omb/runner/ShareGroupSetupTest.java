package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberAssignment;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** When a share-group run may start: the APIs a broker must advertise, and when a group counts as joined. */
class ShareGroupSetupTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    private static ApiVersionsResponseData advertising(ApiKeys... keys) {
        ApiVersionsResponseData d = new ApiVersionsResponseData();
        for (ApiKeys k : keys) {
            d.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(k.id).setMinVersion((short) 0)
                    .setMaxVersion((short) 1));
        }
        return d;
    }

    /** The runner's layout: 16 consumers of one subscription are one group of 16 reading every partition. */
    @Test
    void groupsOf_layoutMembersAndPartitionsPerGroup() {
        io.aloft.omb.workload.Workload w = new io.aloft.omb.workload.Workload("w", 2, 3, 1024, null, 1, 16, 1, 100,
                0, 1, 1, 0, null);
        ShareGroupSetup.Groups g = ShareGroupSetup.Groups.of(ClientLayout.of(w, 16, "p"), List.of("a", "b"), 3);
        assertEquals(Map.of("p-sub0-0", 16), g.members());
        assertEquals(6, g.partitions().get("p-sub0-0").size());
        assertTrue(g.partitions().get("p-sub0-0").contains(new TopicPartition("b", 2)));
    }

    @Test
    void missing_namesEachShareApiTheBrokerLeavesOut() {
        assertEquals(List.of("ShareGroupHeartbeat (76)", "ShareFetch (78)", "ShareAcknowledge (79)"),
                ShareGroupSetup.missing(advertising(ApiKeys.PRODUCE, ApiKeys.FETCH)));
        assertEquals(List.of("ShareAcknowledge (79)"), ShareGroupSetup.missing(advertising(
                ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_FETCH)));
        assertEquals(List.of(), ShareGroupSetup.missing(advertising(ApiKeys.SHARE_GROUP_HEARTBEAT,
                ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE)));
    }

    private static ShareMemberDescription member(String id, TopicPartition... held) {
        return new ShareMemberDescription(id, Optional.empty(), "c-" + id, "/127.0.0.1",
                new ShareMemberAssignment(Set.of(held)), 1);
    }

    private static Map<String, ShareGroupDescription> group(ShareMemberDescription... members) {
        return Map.of("g", new ShareGroupDescription("g", List.of(members), GroupState.STABLE,
                new Node(1, "127.0.0.1", 9092), 1, 1));
    }

    @Test
    void unready_countsMembersThenNeedsEveryPartitionHeldBySomeMember() {
        ShareGroupSetup.Groups three = new ShareGroupSetup.Groups(Map.of("g", 3), Map.of("g", Set.of(P0, P1)));
        String few = ShareGroupSetup.unready(group(member("a", P0), member("b", P1)), three);
        assertTrue(few.contains("2 of 3 members"), few);
        String uncovered = ShareGroupSetup.unready(group(member("a", P0), member("b", P0), member("c")), three);
        assertTrue(uncovered.contains("no member assigned [t-1]"), uncovered);
        assertNull(ShareGroupSetup.unready(group(member("a", P0, P1), member("b", P0), member("c")), three),
                "a partition may be shared, and a member may hold nothing");
        String absent = ShareGroupSetup.unready(Map.of(), three);
        assertTrue(absent.contains("0 of 3 members"), absent);
    }
}
