package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 heartbeat state machine on a coordinator over an in-memory log, driven by hand
 * (manual timer, shards on the calling thread): joins, incremental reconciliation, fencing, timers,
 * static members, metadata changes, conversion from a classic group, and reloading from the log.
 */
class ConsumerGroupShardTest {

    static final int SESSION_MS = 45_000;
    static final int REBALANCE_MS = 30_000;

    /** A cluster whose topics the test changes. Thread-safe enough for one test thread. */
    static final class Topics implements ClusterTopics {
        final Map<String, TopicMetadata> byName = new TreeMap<>();

        Uuid create(String name, int partitions) {
            Uuid id = byName.containsKey(name) ? byName.get(name).id() : new Uuid(0, byName.size() + 1);
            byName.put(name, new TopicMetadata(id, name, partitions));
            return id;
        }

        @Override
        public TopicMetadata topic(String name) {
            return byName.get(name);
        }

        @Override
        public TopicMetadata topic(Uuid id) {
            return byName.values().stream().filter(t -> t.id().equals(id)).findFirst().orElse(null);
        }

        @Override
        public Collection<String> names() {
            return List.copyOf(byName.keySet());
        }
    }

    final ManualGroupTimer timer = new ManualGroupTimer();
    final Topics topics = new Topics();
    MemoryGroupLog log = new MemoryGroupLog();
    GroupCoordinator coordinator = newCoordinator(Map.of());

    GroupCoordinator newCoordinator(Map<String, ?> overrides) {
        GroupCoordinator c = new GroupCoordinator(GroupCoordinatorConfig.fromProperties(overrides), log, timer,
                TopicIdResolver.NONE, topics);
        c.loadAll();
        return c;
    }

    void restart() {
        coordinator.close();
        coordinator = newCoordinator(Map.of());
    }

    static ConsumerGroupHeartbeatRequestData join(String group, String member, String... subscribed) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_MS).setSubscribedTopicNames(List.of(subscribed))
                .setTopicPartitions(List.of());
    }

    /** A plain heartbeat: epoch and owned partitions, nothing else changed. */
    static ConsumerGroupHeartbeatRequestData beat(String group, String member, int epoch, Map<Uuid, Set<Integer>> owned) {
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> tps = new ArrayList<>();
        owned.forEach((t, p) -> tps.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(t)
                .setPartitions(new ArrayList<>(new TreeSet<>(p)))));
        return new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch)
                .setTopicPartitions(tps);
    }

    ConsumerGroupHeartbeatResponseData send(ConsumerGroupHeartbeatRequestData req) {
        return coordinator.consumerGroupHeartbeat(req, (short) 1, "client", "/127.0.0.1").join();
    }

    static Map<Uuid, Set<Integer>> assignment(ConsumerGroupHeartbeatResponseData r) {
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        r.assignment().topicPartitions().forEach(tp -> out.put(tp.topicId(), new HashSet<>(tp.partitions())));
        return out;
    }

    ConsumerGroupDescribeResponseData.DescribedGroup describe(String group) {
        return coordinator.consumerGroupDescribe(new ConsumerGroupDescribeRequestData().setGroupIds(List.of(group)),
                (short) 1).join().groups().get(0);
    }

    /** A member as the test sees it: what it owns, its epoch. */
    final class Member {
        final String group;
        final String id;
        int epoch;
        Map<Uuid, Set<Integer>> owned = new HashMap<>();

        Member(String group, String id, String... subscribed) {
            this(join(group, id, subscribed));
        }

        Member(ConsumerGroupHeartbeatRequestData joinRequest) {
            this.group = joinRequest.groupId();
            this.id = joinRequest.memberId();
            ConsumerGroupHeartbeatResponseData r = send(joinRequest);
            assertEquals(Errors.NONE.code(), r.errorCode(), r.errorMessage());
            apply(r);
        }

        /** Heartbeats; adopts the new assignment at once (revokes what it lost, takes what it got). */
        ConsumerGroupHeartbeatResponseData beat() {
            ConsumerGroupHeartbeatResponseData r = send(ConsumerGroupShardTest.beat(group, id, epoch, owned));
            assertEquals(Errors.NONE.code(), r.errorCode(), r.errorMessage());
            apply(r);
            return r;
        }

        void apply(ConsumerGroupHeartbeatResponseData r) {
            epoch = r.memberEpoch();
            if (r.assignment() != null) {
                owned = assignment(r);
            }
        }

        int size() {
            return owned.values().stream().mapToInt(Set::size).sum();
        }
    }

    /** Heartbeats every member until none changes; returns how many rounds it took. */
    int settle(Member... members) {
        for (int round = 1; round <= 10; round++) {
            boolean changed = false;
            for (Member m : members) {
                int epoch = m.epoch;
                Map<Uuid, Set<Integer>> owned = m.owned;
                m.beat();
                changed |= epoch != m.epoch || !owned.equals(m.owned);
            }
            if (!changed) {
                return round;
            }
        }
        throw new AssertionError("the group did not settle");
    }

    static void assertDisjointAndComplete(int partitions, Member... members) {
        Set<String> seen = new HashSet<>();
        for (Member m : members) {
            m.owned.forEach((t, ps) -> ps.forEach(p -> assertTrue(seen.add(t + "-" + p), t + "-" + p + " twice")));
        }
        assertEquals(partitions, seen.size());
    }

    @Test
    void join_firstMember_getsEveryPartitionAtOnce() {
        Uuid t = topics.create("t", 4);
        Member a = new Member("g", "a", "t");
        assertEquals(Map.of(t, Set.of(0, 1, 2, 3)), a.owned);
        assertTrue(a.epoch > 0);
        assertEquals("Stable", describe("g").groupState());
    }

    @Test
    void secondMember_partitionsMoveOnlyAfterTheFirstRevokes() {
        Uuid t = topics.create("t", 4);
        Member a = new Member("g", "a", "t");
        int aEpoch = a.epoch;
        Member b = new Member("g", "b", "t");
        assertTrue(b.owned.isEmpty(), "b must wait: a still owns every partition");
        assertEquals("Reconciling", describe("g").groupState());

        // a is asked to revoke two partitions, and keeps its epoch until it has.
        ConsumerGroupHeartbeatResponseData r = send(beat("g", "a", aEpoch, Map.of(t, Set.of(0, 1, 2, 3))));
        assertEquals(aEpoch, r.memberEpoch());
        assertEquals(2, assignment(r).get(t).size());
        b.beat();
        assertTrue(b.owned.isEmpty(), "a has not confirmed the revocation yet");

        a.apply(r);
        a.beat(); // now owns only its two: gets the new epoch
        assertTrue(a.epoch > aEpoch);
        b.beat();
        assertEquals(2, b.size());
        assertDisjointAndComplete(4, a, b);
        assertEquals("Stable", describe("g").groupState());
    }

    @Test
    void heartbeat_epochAheadOrStale_fenced_previousEpochWithOwnedPartitions_accepted() {
        Uuid t = topics.create("t", 2);
        Member a = new Member("g", "a", "t");
        ConsumerGroupHeartbeatResponseData ahead = send(beat("g", "a", a.epoch + 1, a.owned));
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), ahead.errorCode());
        Member b = new Member("g", "b", "t");
        settle(a, b);
        int previous = -1;
        // a's epoch moved on; a heartbeat with the epoch before, owning its partitions, is a lost response.
        for (int e = a.epoch - 1; e > 0; e--) {
            ConsumerGroupHeartbeatResponseData r = send(beat("g", "a", e, a.owned));
            if (r.errorCode() == Errors.NONE.code()) {
                previous = e;
                assertEquals(a.epoch, r.memberEpoch());
            } else {
                assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), r.errorCode());
            }
        }
        assertTrue(previous > 0, "the previous epoch is accepted");
        Map<Uuid, Set<Integer>> more = Map.of(t, Set.of(0, 1));
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), send(beat("g", "a", previous, more)).errorCode(),
                "the previous epoch with partitions the member does not have is fenced");
    }

    @Test
    void sessionTimeout_removesMemberAndBumpsEpoch_othersGetItsPartitions() {
        topics.create("t", 4);
        Member a = new Member("g", "a", "t");
        Member b = new Member("g", "b", "t");
        settle(a, b);
        int groupEpoch = describe("g").groupEpoch();
        for (int i = 0; i < 3; i++) { // a keeps heartbeating, b does not
            timer.advance(SESSION_MS / 2);
            a.beat();
        }
        ConsumerGroupDescribeResponseData.DescribedGroup d = describe("g");
        assertEquals(1, d.members().size());
        assertEquals("a", d.members().get(0).memberId());
        assertTrue(d.groupEpoch() > groupEpoch);
        settle(a);
        assertEquals(4, a.size());
    }

    @Test
    void rebalanceTimeout_memberThatDoesNotRevoke_isRemoved() {
        Uuid t = topics.create("t", 4);
        Member a = new Member("g", "a", "t");
        new Member("g", "b", "t");
        ConsumerGroupHeartbeatResponseData r = send(beat("g", "a", a.epoch, a.owned)); // asked to revoke
        assertEquals(2, assignment(r).get(t).size());
        timer.advance(REBALANCE_MS - 1);
        send(beat("g", "a", a.epoch, a.owned)); // heartbeats, but still owns everything
        assertEquals(2, describe("g").members().size());
        timer.advance(2);
        assertEquals(1, describe("g").members().size(), "a was fenced");
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), send(beat("g", "a", a.epoch, a.owned)).errorCode());
    }

    @Test
    void staticMember_leavesWithMinus2_keepsPartitions_replacementTakesThem_orExpiryFreesThem() {
        Uuid t = topics.create("t", 4);
        Member a = new Member("g", "a", "t");
        Member s = new Member("g", "b", "t");
        Member s1 = new Member(join("g", "s1", "t").setInstanceId("i"));
        settle(a, s, s1);
        Map<Uuid, Set<Integer>> kept = s1.owned;
        assertTrue(!kept.isEmpty());
        ConsumerGroupHeartbeatResponseData left = send(beat("g", "s1", s1.epoch, s1.owned).setInstanceId("i")
                .setMemberEpoch(-2));
        assertEquals(-2, left.memberEpoch());
        settle(a, s);
        assertTrue(s1.owned.values().stream().flatMap(Set::stream).noneMatch(
                p -> a.owned.getOrDefault(t, Set.of()).contains(p) || s.owned.getOrDefault(t, Set.of()).contains(p)),
                "nobody takes the away member's partitions");
        ConsumerGroupHeartbeatResponseData back = send(join("g", "s2", "t").setInstanceId("i"));
        assertEquals(Errors.NONE.code(), back.errorCode());
        assertEquals(kept, assignment(back), "the new member with the same instance id gets them back");
        assertEquals(Errors.UNRELEASED_INSTANCE_ID.code(), send(join("g", "s3", "t").setInstanceId("i")).errorCode());

        // Away again, and not back within the session timeout: removed, partitions go to the others.
        send(beat("g", "s2", back.memberEpoch(), assignment(back)).setInstanceId("i").setMemberEpoch(-2));
        for (int i = 0; i < 3; i++) {
            timer.advance(SESSION_MS / 2);
            settle(a, s);
        }
        assertEquals(2, describe("g").members().size());
        assertDisjointAndComplete(4, a, s);
    }

    @Test
    void partitionsAdded_nextHeartbeatBumpsEpochAndAssignsThem() {
        Uuid t = topics.create("t", 2);
        Member a = new Member("g", "a", "t");
        int epoch = describe("g").groupEpoch();
        topics.create("t", 4);
        a.beat();
        assertTrue(describe("g").groupEpoch() > epoch);
        assertEquals(Set.of(0, 1, 2, 3), a.owned.get(t));
    }

    @Test
    void regexSubscription_topicCreatedLater_joinsTheAssignment_invalidRegexRefused() {
        topics.create("metrics-cpu", 1);
        topics.create("other", 1);
        ConsumerGroupHeartbeatResponseData r = send(join("g", "a").setSubscribedTopicNames(null)
                .setSubscribedTopicRegex("metrics-.*"));
        assertEquals(1, assignment(r).size());
        Uuid disk = topics.create("metrics-disk", 2);
        ConsumerGroupHeartbeatResponseData next = send(beat("g", "a", r.memberEpoch(), assignment(r)));
        assertEquals(Set.of(0, 1), assignment(next).get(disk));
        assertEquals("metrics-.*", describe("g").members().get(0).subscribedTopicRegex());
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), send(join("g", "b").setSubscribedTopicNames(null)
                .setSubscribedTopicRegex("(unclosed")).errorCode());
    }

    @Test
    void validation_unknownAssignorAndMaxSize() {
        topics.create("t", 1);
        assertEquals(Errors.UNSUPPORTED_ASSIGNOR.code(),
                send(join("g", "a", "t").setServerAssignor("cooperative-sticky")).errorCode());
        coordinator.close();
        coordinator = newCoordinator(Map.of(GroupCoordinatorConfig.CONSUMER_MAX_SIZE_CONFIG, 1));
        new Member("g", "a", "t");
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED.code(), send(join("g", "b", "t")).errorCode());
    }

    @Test
    void emptyClassicGroupWithOffsets_convertsToConsumerGroup_offsetsKeptAcrossReload() {
        topics.create("t", 1);
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("g").setMemberId("")
                .setGenerationIdOrMemberEpoch(-1).setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName("t").setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(42)))));
        assertEquals(0, coordinator.commitOffsets(commit, (short) 9).join().topics().get(0).partitions().get(0)
                .errorCode());
        Member a = new Member("g", "a", "t");
        assertEquals(List.of("consumer"), groupTypes("g"));
        assertEquals(42, fetchOffset("g"));
        restart();
        assertEquals(List.of("consumer"), groupTypes("g"));
        assertEquals(42, fetchOffset("g"));
        assertEquals(a.epoch, describe("g").members().get(0).memberEpoch());
    }

    private List<String> groupTypes(String group) {
        return coordinator.listGroups(new ListGroupsRequestData(), (short) 5).join().groups().stream()
                .filter(g -> g.groupId().equals(group)).map(g -> g.groupType()).toList();
    }

    private long fetchOffset(String group) {
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(null)));
        return coordinator.fetchOffsets(req, (short) 9).join().groups().get(0).topics().get(0).partitions().get(0)
                .committedOffset();
    }

    /** A scenario with joins, a leave, a revocation in progress and a static member away. */
    private void scenario() {
        topics.create("t", 6);
        topics.create("u", 3);
        Member a = new Member("g", "a", "t", "u");
        Member b = new Member("g", "b", "t");
        settle(a, b);
        ConsumerGroupHeartbeatResponseData s = send(join("g", "s", "t", "u").setInstanceId("inst"));
        Member c = new Member("g", "c", "u");
        settle(a, b, c);
        send(beat("g", "s", s.memberEpoch(), Map.of()).setInstanceId("inst").setMemberEpoch(-2));
        send(beat("g", "c", c.epoch, c.owned).setMemberEpoch(-1));
        new Member("g", "d", "t"); // joins: a and b are asked to revoke, and have not yet
        a.beat();
    }

    @Test
    void reload_fromTheLog_sameStateAndSameNextHeartbeat() {
        scenario();
        ConsumerGroupHeartbeatResponseData live = send(beat("g", "a", describe("g").members().stream()
                .filter(m -> m.memberId().equals("a")).findFirst().orElseThrow().memberEpoch(), Map.of()));
        ConsumerGroupDescribeResponseData.DescribedGroup liveAfter = describe("g");

        // The same requests on a second coordinator, which restarts (reloads its log) before the last one.
        coordinator.close();
        log = new MemoryGroupLog();
        coordinator = newCoordinator(Map.of());
        scenario();
        ConsumerGroupDescribeResponseData.DescribedGroup before = describe("g");
        restart();
        assertEquals(before, describe("g"), "describe after reload");
        ConsumerGroupHeartbeatResponseData reloaded = send(beat("g", "a", describe("g").members().stream()
                .filter(m -> m.memberId().equals("a")).findFirst().orElseThrow().memberEpoch(), Map.of()));
        assertEquals(live, reloaded, "the next heartbeat after reload");
        assertEquals(liveAfter, describe("g"));
        assertNotEquals(0, liveAfter.members().size());
    }

    @Test
    void deleteGroups_emptyConsumerGroup_goneWithItsOffsets_nonEmptyRefused() {
        topics.create("t", 1);
        Member a = new Member("g", "a", "t");
        assertEquals(Errors.NON_EMPTY_GROUP, delete("g"));
        send(beat("g", "a", a.epoch, a.owned).setMemberEpoch(-1));
        assertEquals("Empty", describe("g").groupState());
        assertEquals(Errors.NONE, delete("g"));
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
        restart();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
        assertNull(coordinator.listGroups(new ListGroupsRequestData(), (short) 5).join().groups().stream()
                .filter(g -> g.groupId().equals("g")).findFirst().orElse(null));
    }

    @Test
    void offsetDelete_subscribedTopicKeptWhileMembers_otherTopicDeleted() {
        topics.create("t", 1);
        topics.create("old", 1);
        Member a = new Member("g", "a", "t");
        for (String topic : List.of("t", "old")) {
            assertEquals(0, commit("g", "a", a.epoch, topic, 5));
        }
        org.apache.kafka.common.message.OffsetDeleteResponseData r = coordinator.deleteOffsets(
                new org.apache.kafka.common.message.OffsetDeleteRequestData().setGroupId("g").setTopics(
                        new org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection(
                                List.of(deleteTopic("t"), deleteTopic("old")).iterator())), (short) 0).join();
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code(), r.topics().find("t").partitions().find(0).errorCode());
        assertEquals(Errors.NONE.code(), r.topics().find("old").partitions().find(0).errorCode());
        assertEquals(List.of("t"), committedTopics("g"));
    }

    @Test
    void retention_emptyConsumerGroup_offsetsExpireThenTheGroupGoes() {
        coordinator.close();
        Map<String, Object> retention = Map.of(GroupCoordinatorConfig.OFFSETS_RETENTION_MINUTES_CONFIG, 1,
                GroupCoordinatorConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, 10_000L);
        coordinator = newCoordinator(retention);
        topics.create("t", 1);
        Member a = new Member("g", "a", "t");
        assertEquals(0, commit("g", "a", a.epoch, "t", 5));
        for (int i = 0; i < 6; i++) { // two minutes: a is active and subscribed, nothing expires
            timer.advance(20_000);
            a.beat();
        }
        assertEquals(List.of("t"), committedTopics("g"));
        send(beat("g", "a", a.epoch, a.owned).setMemberEpoch(-1));
        timer.advance(10_001);
        assertEquals(List.of(), committedTopics("g"), "empty, and the commit is older than the retention");
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode(), "nothing left: the group goes");
        coordinator.close();
        coordinator = newCoordinator(retention);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
    }

    private short commit(String group, String member, int epoch, String topic, long offset) {
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(group).setMemberId(member)
                .setGenerationIdOrMemberEpoch(epoch).setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic).setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset)))));
        return coordinator.commitOffsets(commit, (short) 9).join().topics().get(0).partitions().get(0).errorCode();
    }

    private static org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic deleteTopic(
            String name) {
        return new org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(name)
                .setPartitions(List.of(new org.apache.kafka.common.message.OffsetDeleteRequestData
                        .OffsetDeleteRequestPartition().setPartitionIndex(0)));
    }

    private List<String> committedTopics(String group) {
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(null)));
        return coordinator.fetchOffsets(req, (short) 9).join().groups().get(0).topics().stream()
                .map(t -> t.name()).toList();
    }

    private Errors delete(String group) {
        CompletableFuture<org.apache.kafka.common.message.DeleteGroupsResponseData> f = coordinator.deleteGroups(
                new org.apache.kafka.common.message.DeleteGroupsRequestData().setGroupsNames(List.of(group)),
                (short) 2);
        short code = f.join().results().iterator().next().errorCode();
        assertNotNull(Errors.forCode(code));
        return Errors.forCode(code);
    }
}
