package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.ShardContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SyncGroup, Heartbeat and LeaveGroup of the classic protocol, on top of the transitions of
 * {@link MembershipManager}. One per shard, confined to the shard's thread. Holds no per-group state.
 */
final class SyncAndLeave {

    private static final Logger LOG = LoggerFactory.getLogger(SyncAndLeave.class);

    private final MembershipManager membership;
    private final ShardContext<GroupRecord> ctx;

    SyncAndLeave(MembershipManager membership, ShardContext<GroupRecord> ctx) {
        this.membership = membership;
        this.ctx = ctx;
    }

    /**
     * Followers wait until the leader's SyncGroup brings the assignment and it is durable in the
     * group log; then everyone waiting gets its own part and the group is Stable.
     */
    void sync(ClassicGroup g, SyncGroupRequestData req, short version, CompletableFuture<SyncGroupResponseData> future,
              CoordinatorResult.Builder<GroupRecord> out) {
        Errors error = validate(g, req.groupInstanceId(), req.memberId(), req.generationId());
        if (error == Errors.NONE && version >= 5 && (mismatch(req.protocolType(), g.protocolType)
                || mismatch(req.protocolName(), g.protocolName))) {
            error = Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        if (error == Errors.NONE) {
            error = switch (g.state) {
                case EMPTY -> Errors.UNKNOWN_MEMBER_ID;
                case PREPARING_REBALANCE -> Errors.REBALANCE_IN_PROGRESS;
                default -> Errors.NONE;
            };
        }
        if (error != Errors.NONE) {
            g.complete(future, Responses.syncError(error));
            return;
        }
        GroupMember m = g.member(req.memberId());
        g.pendingSync.remove(m.memberId);
        membership.scheduleSession(g, m);
        if (g.is(GroupState.STABLE)) {
            g.complete(future, syncResponse(g, m.assignment));
            return;
        }
        if (m.awaitingSync != null) {
            g.complete(m.awaitingSync, Responses.syncError(Errors.REBALANCE_IN_PROGRESS));
        }
        m.awaitingSync = future;
        if (g.isLeader(m.memberId)) {
            storeAssignment(g, req, out);
        }
    }

    private static boolean mismatch(String requested, String actual) {
        return requested != null && !requested.equals(actual);
    }

    private void storeAssignment(ClassicGroup g, SyncGroupRequestData req, CoordinatorResult.Builder<GroupRecord> out) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestData.SyncGroupRequestAssignment a : req.assignments()) {
            if (g.members.containsKey(a.memberId())) {
                assignments.put(a.memberId(), a.assignment());
            }
        }
        int generation = g.generationId;
        out.append(List.of(g.toRecord(assignments)), (failure, next) -> {
            if (!g.is(GroupState.COMPLETING_REBALANCE) || g.generationId != generation) {
                return; // a newer rebalance has already answered the members waiting here
            }
            if (failure != null) {
                LOG.warn("group {}: could not persist the assignment of generation {}", g.groupId, generation, failure);
                membership.resetAssignments(g, Responses.forLogFailure(failure));
                membership.prepareRebalance(g, "assignment could not be persisted", next);
                return;
            }
            for (GroupMember m : g.members.values()) {
                m.assignment = assignments.getOrDefault(m.memberId, GroupMember.EMPTY);
                if (m.awaitingSync != null) {
                    g.complete(m.awaitingSync, syncResponse(g, m.assignment));
                    m.awaitingSync = null;
                }
            }
            g.transitionTo(GroupState.STABLE, ctx.nowMs());
            LOG.debug("group {}: generation {} is stable", g.groupId, generation);
        });
    }

    private static SyncGroupResponseData syncResponse(ClassicGroup g, byte[] assignment) {
        return new SyncGroupResponseData().setErrorCode(Errors.NONE.code())
                .setProtocolType(g.protocolType).setProtocolName(g.protocolName).setAssignment(assignment);
    }

    HeartbeatResponseData heartbeat(ClassicGroup g, HeartbeatRequestData req) {
        return new HeartbeatResponseData().setErrorCode(heartbeatError(g, req).code());
    }

    private Errors heartbeatError(ClassicGroup g, HeartbeatRequestData req) {
        Errors e = validate(g, req.groupInstanceId(), req.memberId(), req.generationId());
        if (e != Errors.NONE) {
            return e;
        }
        if (g.is(GroupState.EMPTY)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        membership.scheduleSession(g, g.member(req.memberId()));
        return g.is(GroupState.PREPARING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /** Checks shared by SyncGroup, Heartbeat and group offset commits, in Kafka's order. */
    static Errors validate(ClassicGroup g, String groupInstanceId, String memberId, int generationId) {
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (g.isStaticMemberFenced(groupInstanceId, memberId)) {
            return Errors.FENCED_INSTANCE_ID;
        }
        if (memberId == null || g.member(memberId) == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != g.generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        return Errors.NONE;
    }

    /** LeaveGroup: one member (v0-2) or a batch (v3+), answered per member from v3. */
    LeaveGroupResponseData leave(ClassicGroup g, LeaveGroupRequestData req, short version, CoordinatorResult.Builder<GroupRecord> out) {
        if (g.is(GroupState.DEAD)) {
            return new LeaveGroupResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
        List<MemberResponse> results = new ArrayList<>();
        for (MemberIdentity id : identities(req, version)) {
            results.add(new MemberResponse().setMemberId(id.memberId()).setGroupInstanceId(id.groupInstanceId())
                    .setErrorCode(leaveOne(g, id, out).code()));
        }
        return leaveResponse(results, version);
    }

    static List<MemberIdentity> identities(LeaveGroupRequestData req, short version) {
        return version >= 3 ? req.members() : List.of(new MemberIdentity().setMemberId(req.memberId()));
    }

    /** Before v3 the one member's error is the response's error; from v3 errors are per member. */
    static LeaveGroupResponseData leaveResponse(List<MemberResponse> results, short version) {
        if (version >= 3) {
            return new LeaveGroupResponseData().setMembers(results);
        }
        return new LeaveGroupResponseData().setErrorCode(results.get(0).errorCode());
    }

    private Errors leaveOne(ClassicGroup g, MemberIdentity id, CoordinatorResult.Builder<GroupRecord> out) {
        String memberId = id.memberId();
        String instanceId = id.groupInstanceId();
        if ((memberId == null || memberId.isEmpty()) && instanceId != null) {
            // KIP-345: the admin client removes static members by instance id alone.
            memberId = g.staticMembers.get(instanceId);
            if (memberId == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
        } else if (g.isStaticMemberFenced(instanceId, memberId)) {
            return Errors.FENCED_INSTANCE_ID;
        }
        if (memberId != null && g.pendingMembers.remove(memberId) != null) {
            if (g.is(GroupState.PREPARING_REBALANCE)) {
                membership.tryCompleteJoin(g, out);
            }
            return Errors.NONE;
        }
        GroupMember m = memberId == null ? null : g.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        LOG.debug("group {}: member {} left", g.groupId, memberId);
        membership.removeMember(g, m, "member " + memberId + " left", out);
        return Errors.NONE;
    }
}
