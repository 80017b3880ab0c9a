package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share group membership (KIP-932) through a broker: raw ShareGroupHeartbeat, and the real admin
 * client's describeShareGroups / listGroups(forShareGroups) / deleteShareGroups; the group, its
 * member and its epoch survive a restart (records in {@code __consumer_offsets}).
 */
class ShareGroupBrokerTest {
    private static final String TOPIC = "share-topic";

    @TempDir
    Path dir;

    static ShareGroupHeartbeatResponseData heartbeat(TestBroker broker, ShareGroupHeartbeatRequestData d)
            throws Exception {
        try (RawKafkaClient c = new RawKafkaClient(broker.bootstrap())) {
            return ((ShareGroupHeartbeatResponse) c.send(new ShareGroupHeartbeatRequest.Builder(d).build((short) 1)))
                    .data();
        }
    }

    static Admin admin(TestBroker broker) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()));
    }

    /**
     * FindCoordinator first (it creates {@code __consumer_offsets}), as a client does; then the
     * group's coordinator may still be loading: heartbeat until it answers.
     */
    static ShareGroupHeartbeatResponseData heartbeatServed(TestBroker broker, ShareGroupHeartbeatRequestData d)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (RawKafkaClient c = new RawKafkaClient(broker.bootstrap())) {
                c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                        .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())
                        .setCoordinatorKeys(List.of(d.groupId()))).build((short) 4));
            }
            ShareGroupHeartbeatResponseData r = heartbeat(broker, d);
            boolean retriable = r.errorCode() == Errors.COORDINATOR_LOAD_IN_PROGRESS.code()
                    || r.errorCode() == Errors.NOT_COORDINATOR.code()
                    || r.errorCode() == Errors.COORDINATOR_NOT_AVAILABLE.code();
            if (!retriable || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(50);
        }
    }

    @Test
    void joinDescribeList_restartKeepsTheGroup_leaveAndDelete() throws Exception {
        TestBroker broker = new TestBroker(dir);
        try {
            Uuid topicId;
            try (Admin admin = admin(broker)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
                topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                        .topicId();
            }
            try (RawKafkaClient c = new RawKafkaClient(broker.bootstrap())) {
                ApiVersionsResponse v = c.send(new ApiVersionsRequest.Builder().build());
                for (ApiKeys key : List.of(ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_GROUP_DESCRIBE)) {
                    ApiVersionsResponseData.ApiVersion range = v.data().apiKeys().find(key.id);
                    assertEquals("1-1", range.minVersion() + "-" + range.maxVersion(), key.name);
                }
            }
            String member = Uuid.randomUuid().toString();
            ShareGroupHeartbeatResponseData joined = heartbeatServed(broker, new ShareGroupHeartbeatRequestData()
                    .setGroupId("sg").setMemberId(member).setMemberEpoch(0).setSubscribedTopicNames(List.of(TOPIC)));
            assertEquals(Errors.NONE.code(), joined.errorCode(), joined.errorMessage());
            // As Kafka: partitions come once their share state is initialized, at a later heartbeat.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (joined.assignment() == null || joined.assignment().topicPartitions().isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "no partitions assigned: " + joined);
                ShareGroupHeartbeatResponseData next = heartbeat(broker, new ShareGroupHeartbeatRequestData()
                        .setGroupId("sg").setMemberId(member).setMemberEpoch(joined.memberEpoch()));
                assertEquals(Errors.NONE.code(), next.errorCode(), next.errorMessage());
                joined = next.assignment() == null ? next.setAssignment(joined.assignment()) : next;
            }
            assertEquals(topicId, joined.assignment().topicPartitions().get(0).topicId());
            assertEquals(List.of(0, 1), joined.assignment().topicPartitions().get(0).partitions());

            assertDescribed(broker, member, GroupState.STABLE, joined.memberEpoch());

            broker.close();
            broker = broker.restart();
            assertDescribed(broker, member, GroupState.STABLE, joined.memberEpoch());
            ShareGroupHeartbeatResponseData again = heartbeatServed(broker, new ShareGroupHeartbeatRequestData()
                    .setGroupId("sg").setMemberId(member).setMemberEpoch(joined.memberEpoch()));
            assertEquals(Errors.NONE.code(), again.errorCode(), again.errorMessage());
            assertEquals(joined.memberEpoch(), again.memberEpoch());

            ShareGroupHeartbeatResponseData left = heartbeat(broker, new ShareGroupHeartbeatRequestData()
                    .setGroupId("sg").setMemberId(member).setMemberEpoch(-1));
            assertEquals(Errors.NONE.code(), left.errorCode());
            try (Admin admin = admin(broker)) {
                assertEquals(GroupState.EMPTY, admin.describeShareGroups(List.of("sg")).all()
                        .get(30, TimeUnit.SECONDS).get("sg").groupState());
                admin.deleteShareGroups(List.of("sg")).all().get(30, TimeUnit.SECONDS);
                assertTrue(admin.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS)
                        .isEmpty());
            }
        } finally {
            broker.close();
        }
    }

    private static void assertDescribed(TestBroker broker, String member, GroupState state, int epoch)
            throws Exception {
        try (Admin admin = admin(broker)) {
            ShareGroupDescription d = admin.describeShareGroups(List.of("sg")).all().get(30, TimeUnit.SECONDS)
                    .get("sg");
            assertEquals(state, d.groupState());
            assertEquals(List.of(member), d.members().stream().map(m -> m.consumerId()).toList());
            assertEquals(epoch, d.groupEpoch());
            Set<Integer> parts = new TreeSet<>();
            d.members().iterator().next().assignment().topicPartitions().forEach(tp -> parts.add(tp.partition()));
            assertEquals(Set.of(0, 1), parts);
            List<GroupListing> listed = List.copyOf(admin.listGroups(ListGroupsOptions.forShareGroups()).all()
                    .get(30, TimeUnit.SECONDS));
            assertEquals(1, listed.size());
            assertEquals("sg", listed.get(0).groupId());
            assertEquals(state, listed.get(0).groupState().orElseThrow());
        }
    }
}
