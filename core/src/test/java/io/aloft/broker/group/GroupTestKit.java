package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;

/** A coordinator over a {@link MemoryGroupLog} and a {@link ManualGroupTimer}, plus request helpers. */
final class GroupTestKit {

    static final short JOIN_V = 9;
    static final short SYNC_V = 5;
    static final int SESSION_MS = 10_000;
    static final int REBALANCE_MS = 30_000;

    final ManualGroupTimer timer = new ManualGroupTimer();
    final GroupLog log;
    final GroupCoordinatorConfig config;
    GroupCoordinator coordinator;

    GroupTestKit() {
        this(Map.of());
    }

    GroupTestKit(Map<String, ?> overrides) {
        this(overrides, new MemoryGroupLog());
    }

    GroupTestKit(Map<String, ?> overrides, GroupLog log) {
        Map<String, Object> props = new HashMap<>();
        props.put(GroupCoordinatorConfig.INITIAL_REBALANCE_DELAY_MS_CONFIG, 0);
        props.putAll(overrides);
        this.config = GroupCoordinatorConfig.fromProperties(props);
        this.log = log;
        this.coordinator = new GroupCoordinator(config, log, timer);
        coordinator.loadAll();
    }

    /** A new coordinator over the same log: what a broker restart looks like. */
    void restart() {
        coordinator.close();
        coordinator = new GroupCoordinator(config, log, timer);
        coordinator.loadAll();
    }

    static byte[] subscription(String... topics) {
        ConsumerProtocolSubscription s = new ConsumerProtocolSubscription().setTopics(List.of(topics));
        ByteBuffer buf = MessageUtil.toVersionPrefixedByteBuffer((short) 1, s);
        byte[] out = new byte[buf.remaining()];
        buf.get(out);
        return out;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static JoinGroupRequestData joinRequest(String group, String memberId, String instanceId, byte[] metadata,
                                            String... protocols) {
        JoinGroupRequestProtocolCollection c = new JoinGroupRequestProtocolCollection();
        for (String p : protocols.length == 0 ? new String[] {"range"} : protocols) {
            c.add(new JoinGroupRequestProtocol().setName(p).setMetadata(metadata));
        }
        return new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setGroupInstanceId(instanceId)
                .setProtocolType("consumer").setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(REBALANCE_MS)
                .setProtocols(c);
    }

    CompletableFuture<JoinGroupResponseData> join(JoinGroupRequestData req) {
        return coordinator.joinGroup(req, JOIN_V, "client", "/127.0.0.1");
    }

    /** A dynamic member's two-step join (MEMBER_ID_REQUIRED, then the join proper); returns the pending join. */
    CompletableFuture<JoinGroupResponseData> joinNew(String group, String... topics) {
        JoinGroupResponseData first = join(joinRequest(group, "", null, subscription(topics))).join();
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
        return join(joinRequest(group, first.memberId(), null, subscription(topics)));
    }

    static JoinGroupResponseData done(CompletableFuture<JoinGroupResponseData> f) {
        assertTrue(f.isDone(), "join should have completed");
        return f.join();
    }

    CompletableFuture<SyncGroupResponseData> sync(String group, JoinGroupResponseData joined,
                                                  Map<String, byte[]> assignments) {
        SyncGroupRequestData req = new SyncGroupRequestData().setGroupId(group).setMemberId(joined.memberId())
                .setGenerationId(joined.generationId()).setProtocolType("consumer")
                .setProtocolName(joined.protocolName());
        assignments.forEach((m, a) -> req.assignments().add(
                new SyncGroupRequestAssignment().setMemberId(m).setAssignment(a)));
        return coordinator.syncGroup(req, SYNC_V);
    }

    Errors heartbeat(String group, String memberId, int generation) {
        return heartbeat(group, memberId, null, generation);
    }

    Errors heartbeat(String group, String memberId, String instanceId, int generation) {
        return Errors.forCode(coordinator.heartbeat(new HeartbeatRequestData().setGroupId(group).setMemberId(memberId)
                .setGroupInstanceId(instanceId).setGenerationId(generation), (short) 4).join().errorCode());
    }

    /**
     * Forms a Stable group of {@code n} dynamic members the way clients do with no initial delay:
     * each newcomer starts a rebalance, the earlier members rejoin, and the leader syncs.
     */
    List<JoinGroupResponseData> stableGroup(String group, int n, String... topics) {
        List<String> ids = new ArrayList<>();
        List<CompletableFuture<JoinGroupResponseData>> round = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            round = new ArrayList<>();
            round.add(joinNew(group, topics));
            for (String id : ids) {
                round.add(join(joinRequest(group, id, null, subscription(topics))));
            }
            ids.add(done(round.get(0)).memberId());
        }
        List<JoinGroupResponseData> responses = round.stream().map(GroupTestKit::done).toList();
        JoinGroupResponseData leader = responses.stream().filter(r -> r.leader().equals(r.memberId()))
                .findFirst().orElseThrow();
        Map<String, byte[]> assignment = new HashMap<>();
        responses.forEach(r -> assignment.put(r.memberId(), bytes("assigned-" + r.memberId())));
        List<CompletableFuture<SyncGroupResponseData>> syncs = new ArrayList<>();
        for (JoinGroupResponseData r : responses) {
            syncs.add(sync(group, r, r == leader ? assignment : Map.of()));
        }
        syncs.forEach(f -> assertEquals(Errors.NONE.code(), f.join().errorCode()));
        return responses;
    }
}
