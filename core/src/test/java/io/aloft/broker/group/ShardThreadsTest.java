package io.aloft.broker.group;

import static io.aloft.broker.group.GroupTestKit.joinRequest;
import static io.aloft.broker.group.GroupTestKit.subscription;
import static io.aloft.broker.group.OffsetTest.commit;
import static io.aloft.broker.group.OffsetTest.commitError;
import static io.aloft.broker.group.OffsetTest.fetch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.SystemCoordinatorTimer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The classic coordinator as the broker runs it: shards on their own threads and wall-clock timers,
 * driven from several client threads at once (the other group tests drive it from one thread).
 */
class ShardThreadsTest {

    private SystemCoordinatorTimer timer;
    private CoordinatorThreads threads;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() {
        timer = new SystemCoordinatorTimer(r -> new Thread(r, "test-coordinator-timer"));
        threads = CoordinatorThreads.fixed(2, r -> new Thread(r, "test-group-shard"));
        GroupCoordinatorConfig config = GroupCoordinatorConfig.fromProperties(Map.of(
                GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 0,
                GroupCoordinatorConfig.OFFSETS_TOPIC_PARTITIONS_CONFIG, 8));
        coordinator = new GroupCoordinator(config, new MemoryGroupLog(), timer, TopicIdResolver.NONE, threads);
        coordinator.loadAll();
    }

    @AfterEach
    void stop() {
        coordinator.close();
        threads.close();
        timer.close();
    }

    @Test
    void commits_fromManyThreadsToManyGroups_lastCommitOfEachWins() throws Exception {
        int clients = 4;
        int commits = 200;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            String group = "g-" + c;
            done.add(CompletableFuture.runAsync(() -> {
                List<CompletableFuture<Errors>> acks = new ArrayList<>();
                for (int i = 1; i <= commits; i++) {
                    acks.add(coordinator.commitOffsets(commit(group, "", -1, "t", i % 3, i), (short) 9)
                            .thenApply(OffsetTest::commitError));
                }
                acks.forEach(a -> assertEquals(Errors.NONE, a.join()));
            }));
        }
        for (CompletableFuture<Void> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        for (int c = 0; c < clients; c++) {
            for (int p = 0; p < 3; p++) {
                long last = commits - ((commits - p) % 3);
                assertEquals(last, fetch(coordinator, "g-" + c, "t", p), "group g-" + c + " partition " + p);
            }
        }
    }

    @Test
    void rebalance_membersJoiningFromTheirOwnThreads_allGetTheirAssignment() throws Exception {
        String group = "threads";
        int members = 3;
        // Ids first (MEMBER_ID_REQUIRED): a handed-out id holds the join open until its member joins,
        // so the concurrent joins below all land in one generation whatever their order.
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            ids.add(coordinator.joinGroup(joinRequest(group, "", null, subscription("t")), GroupTestKit.JOIN_V,
                    "c", "/h").get(30, TimeUnit.SECONDS).memberId());
        }
        List<CompletableFuture<JoinGroupResponseData>> joins = new ArrayList<>();
        for (String id : ids) {
            joins.add(CompletableFuture.supplyAsync(() -> coordinator.joinGroup(
                    joinRequest(group, id, null, subscription("t")), GroupTestKit.JOIN_V, "c", "/h").join()));
        }
        List<JoinGroupResponseData> stable = new ArrayList<>();
        for (CompletableFuture<JoinGroupResponseData> j : joins) {
            JoinGroupResponseData r = j.get(30, TimeUnit.SECONDS);
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertEquals(1, r.generationId());
            stable.add(r);
        }
        JoinGroupResponseData leader = stable.stream().filter(r -> r.leader().equals(r.memberId())).findFirst()
                .orElseThrow();
        assertEquals(members, leader.members().size());
        Map<String, byte[]> assignment = new HashMap<>();
        stable.forEach(r -> assignment.put(r.memberId(), GroupTestKit.bytes("for-" + r.memberId())));
        List<CompletableFuture<SyncGroupResponseData>> syncs = new ArrayList<>();
        for (JoinGroupResponseData r : stable) {
            SyncGroupRequestData req = new SyncGroupRequestData().setGroupId(group).setMemberId(r.memberId())
                    .setGenerationId(r.generationId()).setProtocolType("consumer").setProtocolName(r.protocolName());
            if (r == leader) {
                assignment.forEach((m, a) -> req.assignments().add(
                        new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(m).setAssignment(a)));
            }
            syncs.add(CompletableFuture.supplyAsync(() -> coordinator.syncGroup(req, GroupTestKit.SYNC_V).join()));
        }
        for (int i = 0; i < members; i++) {
            SyncGroupResponseData s = syncs.get(i).get(30, TimeUnit.SECONDS);
            assertEquals(Errors.NONE.code(), s.errorCode());
            assertEquals("for-" + stable.get(i).memberId(), new String(s.assignment()));
        }
    }
}
