package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.ShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic rebalance protocol for one group at a time: JoinGroup, the delayed join (initial
 * delay and rebalance timeout), generations, leader election, protocol selection, session
 * timeouts and member removal. SyncGroup, Heartbeat and LeaveGroup are in {@link SyncAndLeave},
 * which uses the transitions here.
 *
 * <p>One per shard; confined to the shard's thread, like the groups it works on. Methods that may
 * write records take the operation's {@link CoordinatorResult.Builder}; timers run on the shard's
 * thread ({@link ShardContext#schedule}) and check a token, so that a timer replaced by a newer one
 * does nothing. Holds no per-group state of its own.
 */
final class MembershipManager {

    private static final Logger LOG = LoggerFactory.getLogger(MembershipManager.class);

    private final GroupCoordinatorConfig config;
    private final ShardContext<GroupRecord> ctx;

    MembershipManager(GroupCoordinatorConfig config, ShardContext<GroupRecord> ctx) {
        this.config = config;
        this.ctx = ctx;
    }

    /** A timer on the shard's thread whose body may write records, as an operation does. */
    CoordinatorTimer.Scheduled schedule(long delayMs, String name,
                                        Consumer<CoordinatorResult.Builder<GroupRecord>> body) {
        return ctx.schedule(delayMs, name, () -> {
            CoordinatorResult.Builder<GroupRecord> out = CoordinatorResult.builder();
            body.accept(out);
            return out.build(null);
        });
    }

    // ---- JoinGroup -----------------------------------------------------------------------

    /** What a JoinGroup asks for, with version-dependent fields already interpreted. */
    record JoinRequest(String memberId, String groupInstanceId, String protocolType,
                       List<GroupMember.Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
                       String clientId, String clientHost, short version) {

        static JoinRequest of(JoinGroupRequestData req, short version, String clientId, String clientHost) {
            List<GroupMember.Protocol> protocols = new ArrayList<>();
            req.protocols().forEach(p -> protocols.add(new GroupMember.Protocol(p.name(), p.metadata())));
            // v0 has no rebalance timeout: the session timeout served as both.
            int rebalance = version == 0 ? req.sessionTimeoutMs() : req.rebalanceTimeoutMs();
            return new JoinRequest(req.memberId() == null ? "" : req.memberId(),
                    version >= 5 ? req.groupInstanceId() : null, req.protocolType(), protocols,
                    req.sessionTimeoutMs(), rebalance, clientId, clientHost, version);
        }

        List<String> protocolNames() {
            return protocols.stream().map(GroupMember.Protocol::name).toList();
        }
    }

    /** JoinGroup: {@code future} completes now (an error, MEMBER_ID_REQUIRED) or when the rebalance does. */
    void join(ClassicGroup g, JoinRequest req, CompletableFuture<JoinGroupResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs()
                || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            future.complete(Responses.joinError(Errors.INVALID_SESSION_TIMEOUT, req.memberId(), req.version()));
            return;
        }
        Errors error = req.memberId().isEmpty() ? joinNewMember(g, req, future, out)
                : joinKnownMember(g, req, future, out);
        if (error != Errors.NONE) {
            g.complete(future, Responses.joinError(error, req.memberId(), req.version()));
        }
    }

    private Errors joinNewMember(ClassicGroup g, JoinRequest req, CompletableFuture<JoinGroupResponseData> future,
                                 CoordinatorResult.Builder<GroupRecord> out) {
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE; // deleted or unloaded meanwhile; the client retries
        }
        if (!acceptsJoiningMember(g, null)) {
            return Errors.GROUP_MAX_SIZE_REACHED;
        }
        if (!g.supportsProtocols(req.protocolType(), req.protocolNames())) {
            return Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        String newId = (req.clientId() == null ? "" : req.clientId()) + "-" + UUID.randomUUID();
        if (req.groupInstanceId() != null) {
            String oldId = g.staticMembers.get(req.groupInstanceId());
            if (oldId != null) {
                replaceStaticMember(g, oldId, newId, req, future, out);
            } else {
                addMemberAndRebalance(g, newId, req, future, out);
            }
        } else if (req.version() >= 4) {
            // KIP-394: hand out the id first, so a client that times out and retries does not
            // leave a half-joined member behind; the member joins for real with this id.
            addPendingMember(g, newId, req.sessionTimeoutMs());
            g.complete(future, Responses.joinError(Errors.MEMBER_ID_REQUIRED, newId, req.version()));
        } else {
            addMemberAndRebalance(g, newId, req, future, out);
        }
        return Errors.NONE;
    }

    private Errors joinKnownMember(ClassicGroup g, JoinRequest req, CompletableFuture<JoinGroupResponseData> future,
                                   CoordinatorResult.Builder<GroupRecord> out) {
        String memberId = req.memberId();
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (g.pendingMembers.containsKey(memberId)) {
            if (!acceptsJoiningMember(g, memberId)) {
                return Errors.GROUP_MAX_SIZE_REACHED;
            }
            if (!g.supportsProtocols(req.protocolType(), req.protocolNames())) {
                return Errors.INCONSISTENT_GROUP_PROTOCOL;
            }
            g.pendingMembers.remove(memberId);
            addMemberAndRebalance(g, memberId, req, future, out);
            return Errors.NONE;
        }
        if (g.isStaticMemberFenced(req.groupInstanceId(), memberId)) {
            return Errors.FENCED_INSTANCE_ID;
        }
        GroupMember m = g.member(memberId);
        if (m == null || g.is(GroupState.EMPTY)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (!g.supportsProtocols(req.protocolType(), req.protocolNames())) {
            return Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        switch (g.state) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(g, m, req, future, out);
            case COMPLETING_REBALANCE -> {
                if (m.sameProtocols(req.protocols())) {
                    // The member lost our JoinGroup response: send it again, same generation.
                    g.complete(future, joinResponse(g, m, req.version(), g.isLeader(memberId), false));
                } else {
                    updateMemberAndRebalance(g, m, req, future, out);
                }
            }
            case STABLE -> {
                if (g.isLeader(memberId) || !m.sameProtocols(req.protocols())) {
                    // A rejoining leader wants to reassign (e.g. metadata changed); a changed
                    // subscription needs a new assignment.
                    updateMemberAndRebalance(g, m, req, future, out);
                } else {
                    g.complete(future, joinResponse(g, m, req.version(), false, false));
                }
            }
            default -> {
                return Errors.UNKNOWN_MEMBER_ID;
            }
        }
        return Errors.NONE;
    }

    /** group.max.size counts members and ids handed out but not yet joined with. */
    private boolean acceptsJoiningMember(ClassicGroup g, String pendingId) {
        if (g.is(GroupState.EMPTY) && g.members.isEmpty() && g.pendingMembers.isEmpty()) {
            return true;
        }
        int others = g.members.size() + g.pendingMembers.size() - (pendingId != null ? 1 : 0);
        return others < config.maxSize();
    }

    private void addPendingMember(ClassicGroup g, String memberId, int sessionTimeoutMs) {
        long token = g.nextSequence();
        g.pendingMembers.put(memberId, token);
        schedule(sessionTimeoutMs, "pending-member-expiry", out -> {
            if (Objects.equals(g.pendingMembers.get(memberId), token)) {
                g.pendingMembers.remove(memberId);
                LOG.debug("group {}: pending member {} did not join in time", g.groupId, memberId);
                if (g.is(GroupState.PREPARING_REBALANCE)) {
                    tryCompleteJoin(g, out);
                }
            }
        });
    }

    private void addMemberAndRebalance(ClassicGroup g, String memberId, JoinRequest req,
                                       CompletableFuture<JoinGroupResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        GroupMember m = new GroupMember(memberId, req.groupInstanceId(), req.protocolType(), req.clientId(),
                req.clientHost(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), req.protocols());
        m.isNew = true;
        m.awaitingJoin = future;
        m.joinVersion = req.version();
        g.add(m);
        if (g.initialDelayActive) {
            g.newMemberAdded = true;
        }
        scheduleSession(g, m);
        maybePrepareRebalance(g, "member " + memberId + " joined", out);
    }

    private void updateMemberAndRebalance(ClassicGroup g, GroupMember m, JoinRequest req,
                                          CompletableFuture<JoinGroupResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        if (m.awaitingJoin != null) {
            // A retried JoinGroup replaces the earlier one; that connection gets told to rejoin.
            g.complete(m.awaitingJoin, Responses.joinError(Errors.REBALANCE_IN_PROGRESS, m.memberId, m.joinVersion));
        }
        m.protocols = List.copyOf(req.protocols());
        m.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        m.sessionTimeoutMs = req.sessionTimeoutMs();
        m.clientId = req.clientId();
        m.clientHost = req.clientHost();
        m.awaitingJoin = future;
        m.joinVersion = req.version();
        maybePrepareRebalance(g, "member " + m.memberId + " rejoined", out);
    }

    /**
     * KIP-345: a static member restarting joins with its instance id and no member id. It takes
     * over the old member's place and assignment under a new member id; the old id is fenced.
     * A Stable group needs no rebalance unless the member's protocols changed, or it is the
     * leader and its client cannot be told to skip the assignment (JoinGroup below v9, KIP-814).
     */
    private void replaceStaticMember(ClassicGroup g, String oldId, String newId, JoinRequest req,
                                     CompletableFuture<JoinGroupResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        GroupMember old = g.member(oldId);
        cancelSession(old);
        if (old.awaitingJoin != null) {
            g.complete(old.awaitingJoin, Responses.joinError(Errors.FENCED_INSTANCE_ID, oldId, old.joinVersion));
            old.awaitingJoin = null;
        }
        if (old.awaitingSync != null) {
            g.complete(old.awaitingSync, Responses.syncError(Errors.FENCED_INSTANCE_ID));
            old.awaitingSync = null;
        }
        GroupMember m = new GroupMember(newId, req.groupInstanceId(), req.protocolType(), req.clientId(),
                req.clientHost(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), req.protocols());
        m.assignment = old.assignment;
        g.replace(oldId, m);
        scheduleSession(g, m);
        LOG.debug("group {}: static member {} replaced member {} by {}", g.groupId, req.groupInstanceId(), oldId, newId);
        boolean leader = g.isLeader(newId);
        boolean keepsAssignment = g.is(GroupState.STABLE) && old.sameProtocols(req.protocols())
                && Objects.equals(g.protocolName, g.selectProtocol()) && !(leader && req.version() < 9);
        if (keepsAssignment) {
            int generation = g.generationId;
            out.append(List.of(g.toRecord(null)), (failure, next) -> {
                if (failure != null) {
                    LOG.warn("group {}: could not persist static member replacement", g.groupId, failure);
                    g.complete(future, Responses.joinError(Responses.forLogFailure(failure), newId, req.version()));
                } else if (g.generationId != generation || g.member(newId) != m) {
                    g.complete(future, Responses.joinError(Errors.REBALANCE_IN_PROGRESS, newId, req.version()));
                } else {
                    g.complete(future, joinResponse(g, m, req.version(), leader, leader));
                }
            });
            return;
        }
        m.awaitingJoin = future;
        m.joinVersion = req.version();
        maybePrepareRebalance(g, "static member " + req.groupInstanceId() + " rejoined", out);
    }

    // ---- the delayed join ----------------------------------------------------------------

    void maybePrepareRebalance(ClassicGroup g, String reason, CoordinatorResult.Builder<GroupRecord> out) {
        switch (g.state) {
            case STABLE, COMPLETING_REBALANCE, EMPTY -> prepareRebalance(g, reason, out);
            case PREPARING_REBALANCE -> tryCompleteJoin(g, out);
            default -> {
            }
        }
    }

    void prepareRebalance(ClassicGroup g, String reason, CoordinatorResult.Builder<GroupRecord> out) {
        if (g.is(GroupState.COMPLETING_REBALANCE)) {
            resetAssignments(g, Errors.REBALANCE_IN_PROGRESS);
        }
        cancelJoinTimer(g);
        cancelSyncTimer(g);
        boolean initial = g.is(GroupState.EMPTY) && config.initialRebalanceDelayMs() > 0;
        g.transitionTo(GroupState.PREPARING_REBALANCE, ctx.nowMs());
        LOG.debug("group {}: preparing rebalance of generation {}: {}", g.groupId, g.generationId, reason);
        int rebalanceTimeout = g.rebalanceTimeoutMs();
        if (initial) {
            // Wait for the rest of a starting group instead of rebalancing once per member.
            int delay = Math.min(config.initialRebalanceDelayMs(), rebalanceTimeout);
            g.initialDelayActive = true;
            g.newMemberAdded = false;
            g.initialDelayRemainingMs = Math.max(rebalanceTimeout - config.initialRebalanceDelayMs(), 0);
            scheduleJoinTimer(g, delay, this::onInitialDelayExpired);
        } else {
            scheduleJoinTimer(g, rebalanceTimeout, this::completeJoin);
            tryCompleteJoin(g, out);
        }
    }

    private void onInitialDelayExpired(ClassicGroup g, CoordinatorResult.Builder<GroupRecord> out) {
        if (g.newMemberAdded && g.initialDelayRemainingMs > 0) {
            long delay = Math.min(config.initialRebalanceDelayMs(), g.initialDelayRemainingMs);
            g.initialDelayRemainingMs = Math.max(g.initialDelayRemainingMs - config.initialRebalanceDelayMs(), 0);
            g.newMemberAdded = false;
            g.initialDelayActive = true;
            scheduleJoinTimer(g, delay, this::onInitialDelayExpired);
        } else {
            completeJoin(g, out);
        }
    }

    void tryCompleteJoin(ClassicGroup g, CoordinatorResult.Builder<GroupRecord> out) {
        if (g.is(GroupState.PREPARING_REBALANCE) && !g.initialDelayActive && g.allMembersJoined()) {
            completeJoin(g, out);
        }
    }

    /**
     * Ends the join phase: members that did not rejoin are dropped (static ones keep their place
     * until their session expires, KIP-345), a new generation starts, and every waiting member
     * gets its JoinGroup response; the leader's carries the member list.
     */
    private void completeJoin(ClassicGroup g, CoordinatorResult.Builder<GroupRecord> out) {
        cancelJoinTimer(g);
        for (GroupMember m : new ArrayList<>(g.members.values())) {
            if (m.awaitingJoin == null && !m.isStatic()) {
                LOG.debug("group {}: member {} did not rejoin within the rebalance timeout", g.groupId, m.memberId);
                cancelSession(m);
                g.remove(m.memberId);
            }
        }
        if (!g.members.isEmpty() && g.members.values().stream().noneMatch(m -> m.awaitingJoin != null)) {
            // Only static members that have not rejoined are left: give them another round.
            scheduleJoinTimer(g, g.rebalanceTimeoutMs(), this::completeJoin);
            return;
        }
        GroupMember leader = g.leaderId == null ? null : g.member(g.leaderId);
        if (leader == null || leader.awaitingJoin == null) {
            g.leaderId = g.members.values().stream().filter(m -> m.awaitingJoin != null)
                    .map(m -> m.memberId).findFirst().orElse(null);
        }
        g.generationId++;
        if (g.members.isEmpty()) {
            g.protocolName = null;
            g.leaderId = null;
            g.transitionTo(GroupState.EMPTY, ctx.nowMs());
            LOG.debug("group {}: generation {} is empty", g.groupId, g.generationId);
            int generation = g.generationId;
            out.append(List.of(g.toRecord(null)), (failure, next) -> {
                if (failure != null) {
                    LOG.warn("group {}: could not persist empty generation {}", g.groupId, generation, failure);
                }
            });
            return;
        }
        g.protocolName = g.selectProtocol();
        g.transitionTo(GroupState.COMPLETING_REBALANCE, ctx.nowMs());
        scheduleSyncTimer(g, g.rebalanceTimeoutMs());
        g.pendingSync.addAll(g.members.keySet());
        LOG.debug("group {}: generation {} with {} members, protocol {}, leader {}", g.groupId, g.generationId,
                g.members.size(), g.protocolName, g.leaderId);
        for (GroupMember m : g.members.values()) {
            if (m.awaitingJoin != null) {
                g.complete(m.awaitingJoin, joinResponse(g, m, m.joinVersion, g.isLeader(m.memberId), false));
                m.awaitingJoin = null;
                m.isNew = false;
                scheduleSession(g, m);
            }
        }
    }

    private JoinGroupResponseData joinResponse(ClassicGroup g, GroupMember m, short version,
                                               boolean withMembers, boolean skipAssignment) {
        return new JoinGroupResponseData()
                .setErrorCode(Errors.NONE.code())
                .setGenerationId(g.generationId)
                .setProtocolType(g.protocolType)
                .setProtocolName(g.protocolName)
                .setLeader(g.leaderId)
                .setSkipAssignment(skipAssignment)
                .setMemberId(m.memberId)
                .setMembers(withMembers ? g.memberListForLeader() : List.of());
    }

    /** Clears assignments and answers members waiting in SyncGroup with {@code error}. */
    void resetAssignments(ClassicGroup g, Errors error) {
        for (GroupMember m : g.members.values()) {
            m.assignment = GroupMember.EMPTY;
            if (m.awaitingSync != null) {
                g.complete(m.awaitingSync, Responses.syncError(error));
                m.awaitingSync = null;
                scheduleSession(g, m); // a full session from its answer to come back
            }
        }
    }

    private void scheduleJoinTimer(ClassicGroup g, long delayMs,
                                   BiConsumer<ClassicGroup, CoordinatorResult.Builder<GroupRecord>> action) {
        long token = ++g.joinTimerToken;
        g.joinTimer = schedule(delayMs, "join-timeout", out -> {
            if (g.joinTimerToken == token && g.is(GroupState.PREPARING_REBALANCE)) {
                g.joinTimer = null;
                g.initialDelayActive = false;
                action.accept(g, out);
            }
        });
    }

    /**
     * Members that were answered JoinGroup must send SyncGroup within the rebalance timeout (as in
     * Kafka): otherwise a leader that never syncs would leave the followers waiting for ever. The
     * ones that did not are removed and the rest rebalance.
     */
    private void scheduleSyncTimer(ClassicGroup g, long delayMs) {
        cancelSyncTimer(g);
        long token = g.syncTimerToken;
        int generation = g.generationId;
        g.syncTimer = schedule(delayMs, "sync-timeout", out -> {
            if (g.syncTimerToken != token || g.generationId != generation || g.pendingSync.isEmpty()
                    || !(g.is(GroupState.COMPLETING_REBALANCE) || g.is(GroupState.STABLE))) {
                return;
            }
            g.syncTimer = null;
            List<String> silent = new ArrayList<>(g.pendingSync);
            LOG.info("group {}: members {} did not send SyncGroup for generation {} within the rebalance timeout; "
                    + "removing them", g.groupId, silent, generation);
            for (String id : silent) {
                GroupMember m = g.member(id);
                if (m != null) {
                    detach(g, m);
                }
            }
            prepareRebalance(g, "members " + silent + " did not sync", out);
        });
    }

    private void cancelSyncTimer(ClassicGroup g) {
        g.syncTimerToken++;
        g.pendingSync.clear();
        if (g.syncTimer != null) {
            g.syncTimer.cancel();
            g.syncTimer = null;
        }
    }

    void cancelJoinTimer(ClassicGroup g) {
        g.joinTimerToken++;
        g.initialDelayActive = false;
        if (g.joinTimer != null) {
            g.joinTimer.cancel();
            g.joinTimer = null;
        }
    }

    // ---- sessions and removal ------------------------------------------------------------

    /** (Re)arms the member's session timer: heartbeats, syncs and commits keep a member alive. */
    void scheduleSession(ClassicGroup g, GroupMember m) {
        cancelSession(m);
        long token = m.sessionToken;
        m.sessionTimer = schedule(m.sessionTimeoutMs, "session-timeout", out -> {
            if (m.sessionToken != token || g.member(m.memberId) != m) {
                return;
            }
            if (m.awaitingJoin != null || m.awaitingSync != null) {
                // A member blocked in JoinGroup or SyncGroup cannot heartbeat; the rebalance
                // timeout, not the session timeout, bounds how long it may wait.
                scheduleSession(g, m);
                return;
            }
            LOG.debug("group {}: member {} session expired", g.groupId, m.memberId);
            removeMember(g, m, "session timeout of member " + m.memberId, out);
        });
    }

    void cancelSession(GroupMember m) {
        m.sessionToken++;
        if (m.sessionTimer != null) {
            m.sessionTimer.cancel();
            m.sessionTimer = null;
        }
    }

    /** Removes a member (leave or session expiry) and rebalances the rest. */
    void removeMember(ClassicGroup g, GroupMember m, String reason, CoordinatorResult.Builder<GroupRecord> out) {
        detach(g, m);
        switch (g.state) {
            case PREPARING_REBALANCE -> tryCompleteJoin(g, out);
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(g, reason, out);
            default -> {
            }
        }
    }

    /** Takes a member out of the group, answering its waiting requests with UNKNOWN_MEMBER_ID. */
    private void detach(ClassicGroup g, GroupMember m) {
        cancelSession(m);
        if (m.awaitingJoin != null) {
            g.complete(m.awaitingJoin, Responses.joinError(Errors.UNKNOWN_MEMBER_ID, m.memberId, m.joinVersion));
            m.awaitingJoin = null;
        }
        if (m.awaitingSync != null) {
            g.complete(m.awaitingSync, Responses.syncError(Errors.UNKNOWN_MEMBER_ID));
            m.awaitingSync = null;
        }
        g.pendingSync.remove(m.memberId);
        g.remove(m.memberId);
    }

    /** Restarts session timers of members restored from the log; silent ones then expire as usual. */
    void restore(ClassicGroup g) {
        g.members.values().forEach(m -> scheduleSession(g, m));
    }

    /** The group is going away (deleted, or its partition unloaded): stop timers, answer waiters. */
    void shutDown(ClassicGroup g, Errors error) {
        cancelJoinTimer(g);
        cancelSyncTimer(g);
        g.pendingMembers.clear();
        for (GroupMember m : g.members.values()) {
            cancelSession(m);
            if (m.awaitingJoin != null) {
                g.complete(m.awaitingJoin, Responses.joinError(error, m.memberId, m.joinVersion));
                m.awaitingJoin = null;
            }
            if (m.awaitingSync != null) {
                g.complete(m.awaitingSync, Responses.syncError(error));
                m.awaitingSync = null;
            }
        }
        g.transitionTo(GroupState.DEAD, ctx.nowMs());
    }
}
