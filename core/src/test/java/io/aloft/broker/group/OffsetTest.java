package io.aloft.broker.group;

import static io.aloft.broker.group.GroupTestKit.joinRequest;
import static io.aloft.broker.group.GroupTestKit.subscription;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class OffsetTest {

    private static final String G = "offsets-group";
    private static final short COMMIT_V = 9;

    static OffsetCommitRequestData commit(String group, String memberId, int generation, String topic,
                                          int partition, long offset) {
        return new OffsetCommitRequestData().setGroupId(group).setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation).setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName(topic).setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(partition).setCommittedOffset(offset)
                                .setCommittedLeaderEpoch(3).setCommittedMetadata("m" + offset)))));
    }

    static Errors commitError(OffsetCommitResponseData r) {
        return Errors.forCode(r.topics().get(0).partitions().get(0).errorCode());
    }

    /** The committed offset of one partition through the v8+ multi-group fetch. */
    static long fetch(GroupCoordinator c, String group, String topic, int partition) {
        OffsetFetchResponseData r = c.fetchOffsets(new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(topic)
                                .setPartitionIndexes(List.of(partition)))))), (short) 9).join();
        assertEquals(Errors.NONE.code(), r.groups().get(0).errorCode());
        return r.groups().get(0).topics().get(0).partitions().get(0).committedOffset();
    }

    @Test
    void commit_memberOfStableGroup_fetchReturnsOffsetEpochMetadata() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData m = kit.stableGroup(G, 1, "orders").get(0);

        OffsetCommitResponseData r = kit.coordinator.commitOffsets(
                commit(G, m.memberId(), m.generationId(), "orders", 2, 42), COMMIT_V).join();
        assertEquals(Errors.NONE, commitError(r));
        assertEquals("orders", r.topics().get(0).name());

        OffsetFetchResponseData single = kit.coordinator.fetchOffsets(new OffsetFetchRequestData().setGroupId(G)
                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("orders")
                        .setPartitionIndexes(List.of(2, 5)))), (short) 7).join();
        var parts = single.topics().get(0).partitions();
        assertEquals(42, parts.get(0).committedOffset());
        assertEquals(3, parts.get(0).committedLeaderEpoch());
        assertEquals("m42", parts.get(0).metadata());
        assertEquals(-1, parts.get(1).committedOffset(), "no commit for partition 5");
        assertEquals(42, fetch(kit.coordinator, G, "orders", 2));
    }

    @Test
    void fetch_allTopicsOfMultipleGroups_v8() {
        GroupTestKit kit = new GroupTestKit();
        kit.coordinator.commitOffsets(commit("g1", "", -1, "a", 0, 1), COMMIT_V).join();
        kit.coordinator.commitOffsets(commit("g1", "", -1, "b", 1, 2), COMMIT_V).join();
        OffsetFetchResponseData r = kit.coordinator.fetchOffsets(new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g1").setTopics(null),
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("unknown").setTopics(null))),
                (short) 8).join();
        assertEquals(2, r.groups().get(0).topics().size());
        assertEquals("a", r.groups().get(0).topics().get(0).name());
        assertEquals(2, r.groups().get(0).topics().get(1).partitions().get(0).committedOffset());
        assertTrue(r.groups().get(1).topics().isEmpty());
    }

    @Test
    void commit_staleGeneration_illegalGenerationAndNothingStored() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "orders");
        JoinGroupResponseData m = members.get(0);
        // A second generation starts when the other member changes its subscription.
        kit.join(joinRequest(G, members.get(1).memberId(), null, subscription("orders", "x")));
        JoinGroupResponseData next = GroupTestKit.done(kit.join(joinRequest(G, m.memberId(), null,
                subscription("orders"))));
        assertEquals(m.generationId() + 1, next.generationId());

        OffsetCommitResponseData r = kit.coordinator.commitOffsets(
                commit(G, m.memberId(), m.generationId(), "orders", 0, 7), COMMIT_V).join();
        assertEquals(Errors.ILLEGAL_GENERATION, commitError(r));
        assertEquals(-1, fetch(kit.coordinator, G, "orders", 0));
    }

    @Test
    void commit_memberChecks_unknownMemberRebalanceInProgressNoGroup() {
        GroupTestKit kit = new GroupTestKit();
        List<JoinGroupResponseData> members = kit.stableGroup(G, 2, "orders");
        JoinGroupResponseData m = members.get(0);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, commitError(kit.coordinator.commitOffsets(
                commit(G, "stranger", m.generationId(), "orders", 0, 1), COMMIT_V).join()));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, commitError(kit.coordinator.commitOffsets(
                commit(G, "", -1, "orders", 0, 1), COMMIT_V).join()), "simple commit into an active group");

        // Both rejoin: generation 2 is CompletingRebalance until the leader syncs.
        kit.join(joinRequest(G, members.get(1).memberId(), null, subscription("orders", "x")));
        JoinGroupResponseData next = GroupTestKit.done(kit.join(joinRequest(G, m.memberId(), null,
                subscription("orders"))));
        assertEquals(Errors.REBALANCE_IN_PROGRESS, commitError(kit.coordinator.commitOffsets(
                commit(G, m.memberId(), next.generationId(), "orders", 0, 1), COMMIT_V).join()));

        assertEquals(Errors.GROUP_ID_NOT_FOUND, commitError(kit.coordinator.commitOffsets(
                commit("nope", "x", 1, "orders", 0, 1), COMMIT_V).join()));
        assertEquals(Errors.ILLEGAL_GENERATION, commitError(kit.coordinator.commitOffsets(
                commit("nope", "x", 1, "orders", 0, 1), (short) 8).join()));
    }

    @Test
    void commit_simpleCommitWithoutGroup_createsEmptyGroup() {
        GroupTestKit kit = new GroupTestKit();
        assertEquals(Errors.NONE, commitError(kit.coordinator.commitOffsets(
                commit("simple", "", -1, "t", 0, 10), COMMIT_V).join()));
        assertEquals(10, fetch(kit.coordinator, "simple", "t", 0));
    }

    @Test
    void commit_metadataTooLarge_thatPartitionRejected() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.OFFSET_METADATA_MAX_BYTES_CONFIG, 2));
        OffsetCommitRequestData req = commit("simple", "", -1, "t", 0, 10000);
        assertEquals(Errors.OFFSET_METADATA_TOO_LARGE, commitError(kit.coordinator.commitOffsets(req, COMMIT_V).join()));
        assertEquals(-1, fetch(kit.coordinator, "simple", "t", 0));
    }

    @Test
    void commit_appendNotYetDurable_noResponseAndNotVisible() {
        HeldGroupLog log = new HeldGroupLog();
        GroupTestKit kit = new GroupTestKit(Map.of(), log);
        log.hold();
        CompletableFuture<OffsetCommitResponseData> pending =
                kit.coordinator.commitOffsets(commit("simple", "", -1, "t", 0, 5), COMMIT_V);
        assertFalse(pending.isDone());
        assertEquals(-1, fetch(kit.coordinator, "simple", "t", 0));

        log.release();
        assertEquals(Errors.NONE, commitError(pending.join()));
        assertEquals(5, fetch(kit.coordinator, "simple", "t", 0));
    }

    @Test
    void commit_appendFails_errorAndOffsetNotApplied() {
        HeldGroupLog log = new HeldGroupLog();
        GroupTestKit kit = new GroupTestKit(Map.of(), log);
        kit.coordinator.commitOffsets(commit("simple", "", -1, "t", 0, 1), COMMIT_V).join();
        log.hold();
        CompletableFuture<OffsetCommitResponseData> pending =
                kit.coordinator.commitOffsets(commit("simple", "", -1, "t", 0, 2), COMMIT_V);
        log.fail(new IllegalStateException("disk gone"));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, commitError(pending.join()));
        assertEquals(1, fetch(kit.coordinator, "simple", "t", 0));
    }

    @Test
    void offsetDelete_activeConsumerGroup_subscribedTopicRefusedOtherDeleted() {
        GroupTestKit kit = new GroupTestKit();
        JoinGroupResponseData m = kit.stableGroup(G, 1, "orders").get(0);
        kit.coordinator.commitOffsets(commit(G, m.memberId(), m.generationId(), "orders", 0, 1), COMMIT_V).join();
        kit.coordinator.commitOffsets(commit(G, m.memberId(), m.generationId(), "old-topic", 0, 2), COMMIT_V).join();

        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        for (String t : List.of("orders", "old-topic")) {
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t).setPartitions(List.of(
                    new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        }
        OffsetDeleteResponseData r = kit.coordinator.deleteOffsets(
                new OffsetDeleteRequestData().setGroupId(G).setTopics(topics), (short) 0).join();
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code(),
                r.topics().find("orders").partitions().iterator().next().errorCode());
        assertEquals(Errors.NONE.code(), r.topics().find("old-topic").partitions().iterator().next().errorCode());
        assertEquals(1, fetch(kit.coordinator, G, "orders", 0));
        assertEquals(-1, fetch(kit.coordinator, G, "old-topic", 0));

        OffsetDeleteResponseData missing = kit.coordinator.deleteOffsets(
                new OffsetDeleteRequestData().setGroupId("nope"), (short) 0).join();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), missing.errorCode());
    }

    @Test
    void retention_emptyGroupPastRetention_offsetsAndGroupRemoved() {
        GroupTestKit kit = new GroupTestKit(Map.of(GroupCoordinatorConfig.OFFSETS_RETENTION_MINUTES_CONFIG, 1,
                GroupCoordinatorConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, 10_000L));
        kit.coordinator.commitOffsets(commit("simple", "", -1, "t", 0, 5), COMMIT_V).join();
        kit.timer.advance(50_000);
        assertEquals(5, fetch(kit.coordinator, "simple", "t", 0));
        kit.timer.advance(20_000);
        assertEquals(-1, fetch(kit.coordinator, "simple", "t", 0));
        kit.restart();
        assertEquals(-1, fetch(kit.coordinator, "simple", "t", 0), "the expiry was persisted");
    }

    @Test
    void commit_concurrentFromManyThreads_everyPartitionEndsAtItsLastCommit() throws Exception {
        GroupTestKit kit = new GroupTestKit();
        int threads = 4;
        int commits = 200;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int partition = t;
                done.add(pool.submit(() -> {
                    for (int i = 1; i <= commits; i++) {
                        assertEquals(Errors.NONE, commitError(kit.coordinator.commitOffsets(
                                commit("shared", "", -1, "t", partition, i), COMMIT_V).join()));
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < threads; t++) {
            assertEquals(commits, fetch(kit.coordinator, "shared", "t", t));
        }
        kit.restart();
        for (int t = 0; t < threads; t++) {
            assertEquals(commits, fetch(kit.coordinator, "shared", "t", t));
        }
    }
}
