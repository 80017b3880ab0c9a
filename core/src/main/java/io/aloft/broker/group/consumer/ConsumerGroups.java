package io.aloft.broker.group.consumer;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.ShardContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer groups (KIP-848) of one {@code __consumer_offsets} partition: their state, rebuilt by
 * {@link #replay} and changed by nothing else, the heartbeat operation, and the timers that remove
 * members (session timeout, a revocation that takes longer than the rebalance timeout, a static
 * member that does not come back). Every operation returns records to be replayed
 * ({@link CoordinatorResult#of(List, Object)}); the shard that holds this routes the records back to
 * {@link #replay} when they are written and when the partition loads.
 *
 * <p>Confined to the shard's thread (and the loading thread before {@link #onLoaded}).
 */
public final class ConsumerGroups {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroups.class);

    private final ConsumerGroupConfig config;
    private final ShardContext<ConsumerGroupRecord> ctx;
    private final ClusterTopics cluster;
    private final Subscriptions subscriptions = new Subscriptions();
    private final ConsumerGroupHeartbeats heartbeats;
    private final Map<String, ConsumerGroup> groups = new HashMap<>();
    /** Per member (group id, member id): its session timer. */
    private final Map<List<String>, CoordinatorTimer.Scheduled> sessionTimers = new HashMap<>();
    /** Per member asked to revoke: the timer that fences it if it has not by its rebalance timeout. */
    private final Map<List<String>, CoordinatorTimer.Scheduled> rebalanceTimers = new HashMap<>();

    public ConsumerGroups(ConsumerGroupConfig config, ShardContext<ConsumerGroupRecord> ctx, ClusterTopics cluster) {
        this.config = config;
        this.ctx = ctx;
        this.cluster = cluster;
        this.heartbeats = new ConsumerGroupHeartbeats(config, cluster, subscriptions);
    }

    public ConsumerGroupConfig config() {
        return config;
    }

    /** The group, or null if there is no consumer group of that id. */
    public ConsumerGroup group(String groupId) {
        return groups.get(groupId);
    }

    public Collection<ConsumerGroup> all() {
        return groups.values();
    }

    /** The cluster's topics, for naming topics by id in responses. */
    public ClusterTopics cluster() {
        return cluster;
    }

    // ---- replay --------------------------------------------------------------------------

    /** Applies a record, in log order: the only place consumer-group state changes. */
    public void replay(ConsumerGroupRecord record) {
        if (record instanceof ConsumerGroupRecord.GroupEpoch r && r.epoch() == null) {
            groups.remove(r.groupId());
            return;
        }
        groups.computeIfAbsent(record.groupId(), ConsumerGroup::new).replay(record);
    }

    /** Every member gets a fresh session timeout; members revoking get their rebalance timeout again. */
    public void onLoaded() {
        for (ConsumerGroup g : groups.values()) {
            for (ConsumerGroupMember m : g.members().values()) {
                scheduleSession(g.groupId(), m.memberId());
                if (m.current().state() == MemberState.UNREVOKED_PARTITIONS && m.subscription() != null) {
                    scheduleRebalance(g.groupId(), m.memberId(), m.epoch(), m.subscription().rebalanceTimeoutMs());
                }
            }
        }
    }

    /** Timers are cancelled by the runtime; only the handles are dropped. */
    public void onUnloaded() {
        sessionTimers.clear();
        rebalanceTimers.clear();
        groups.clear();
    }

    // ---- heartbeat -----------------------------------------------------------------------

    /**
     * ConsumerGroupHeartbeat of a consumer group (or a new one). The caller has checked that the id
     * is not taken by a classic group that cannot be converted.
     */
    public CoordinatorResult<ConsumerGroupHeartbeatResponseData, ConsumerGroupRecord> heartbeat(
            ConsumerGroupHeartbeatRequestData req, short version, String clientId, String clientHost) {
        ConsumerGroupHeartbeats.Outcome outcome = heartbeats.validate(req, version);
        if (outcome == null) {
            ConsumerGroup group = groups.get(req.groupId());
            if (req.memberEpoch() < 0) {
                outcome = heartbeats.leave(group, req);
            } else {
                boolean full = req.rebalanceTimeoutMs() != -1 && req.topicPartitions() != null
                        && (req.subscribedTopicNames() != null || req.subscribedTopicRegex() != null);
                outcome = heartbeats.heartbeat(group, req, clientId, clientHost, full, UUID.randomUUID().toString());
            }
        }
        updateTimers(outcome);
        return CoordinatorResult.of(outcome.records(), outcome.response());
    }

    /** The validation a ConsumerGroupHeartbeat gets before anything else; null if it passes. */
    public ConsumerGroupHeartbeatResponseData validate(ConsumerGroupHeartbeatRequestData req, short version) {
        ConsumerGroupHeartbeats.Outcome outcome = heartbeats.validate(req, version);
        return outcome == null ? null : outcome.response();
    }

    private void updateTimers(ConsumerGroupHeartbeats.Outcome o) {
        if (o.effect() == ConsumerGroupHeartbeats.Effect.NONE) {
            return;
        }
        if (o.replaced() != null) {
            cancel(sessionTimers, o.groupId(), o.replaced());
            cancel(rebalanceTimers, o.groupId(), o.replaced());
        }
        switch (o.effect()) {
            case LEFT -> {
                LOG.debug("consumer group {}: member {} left", o.groupId(), o.memberId());
                cancel(sessionTimers, o.groupId(), o.memberId());
                cancel(rebalanceTimers, o.groupId(), o.memberId());
            }
            case AWAY -> {
                LOG.debug("consumer group {}: static member {} left for now", o.groupId(), o.memberId());
                cancel(rebalanceTimers, o.groupId(), o.memberId());
                scheduleSession(o.groupId(), o.memberId());
            }
            case ACTIVE -> {
                scheduleSession(o.groupId(), o.memberId());
                if (o.current().state() == MemberState.UNREVOKED_PARTITIONS) {
                    if (!rebalanceTimers.containsKey(List.of(o.groupId(), o.memberId()))) {
                        scheduleRebalance(o.groupId(), o.memberId(), o.current().epoch(), o.rebalanceTimeoutMs());
                    }
                } else {
                    cancel(rebalanceTimers, o.groupId(), o.memberId());
                }
            }
            default -> {
            }
        }
    }

    private void scheduleSession(String groupId, String memberId) {
        List<String> key = List.of(groupId, memberId);
        cancel(sessionTimers, groupId, memberId);
        CoordinatorTimer.Scheduled[] self = new CoordinatorTimer.Scheduled[1];
        self[0] = ctx.schedule(config.sessionTimeoutMs(), "consumer-session-timeout", () -> {
            sessionTimers.remove(key, self[0]);
            return fence(groupId, memberId, "its session timed out", -1);
        });
        sessionTimers.put(key, self[0]);
    }

    private void scheduleRebalance(String groupId, String memberId, int epoch, int timeoutMs) {
        List<String> key = List.of(groupId, memberId);
        cancel(rebalanceTimers, groupId, memberId);
        CoordinatorTimer.Scheduled[] self = new CoordinatorTimer.Scheduled[1];
        self[0] = ctx.schedule(Math.max(0, timeoutMs), "consumer-rebalance-timeout", () -> {
            rebalanceTimers.remove(key, self[0]);
            return fence(groupId, memberId, "it did not revoke its partitions within its rebalance timeout", epoch);
        });
        rebalanceTimers.put(key, self[0]);
    }

    private void cancel(Map<List<String>, CoordinatorTimer.Scheduled> timers, String groupId, String memberId) {
        CoordinatorTimer.Scheduled t = timers.remove(List.of(groupId, memberId));
        if (t != null) {
            t.cancel();
        }
    }

    /**
     * Removes a member that timed out. With {@code revokingEpoch} at 0 or more, only if it still has
     * that epoch and has not finished revoking (a later heartbeat may have moved it on).
     */
    private CoordinatorResult<Void, ConsumerGroupRecord> fence(String groupId, String memberId, String why,
                                                               int revokingEpoch) {
        ConsumerGroup g = groups.get(groupId);
        ConsumerGroupMember m = g == null ? null : g.member(memberId);
        if (m == null || (revokingEpoch >= 0 && (m.epoch() != revokingEpoch
                || m.current().state() != MemberState.UNREVOKED_PARTITIONS))) {
            return CoordinatorResult.of(List.of(), null);
        }
        LOG.info("consumer group {}: member {} removed: {}", groupId, memberId, why);
        cancel(sessionTimers, groupId, memberId);
        cancel(rebalanceTimers, groupId, memberId);
        return CoordinatorResult.of(heartbeats.removal(g, memberId), null);
    }

    /**
     * Removes a member at an administrator's request (LeaveGroup naming it): its timers stop, and the
     * records that remove it are applied at once (the caller appends them with a result that is not
     * replayed, beside the classic group records of the same operation).
     */
    public List<ConsumerGroupRecord> removeNow(ConsumerGroup g, String memberId) {
        cancel(sessionTimers, g.groupId(), memberId);
        cancel(rebalanceTimers, g.groupId(), memberId);
        List<ConsumerGroupRecord> records = heartbeats.removal(g, memberId);
        records.forEach(this::replay);
        LOG.info("consumer group {}: member {} removed by LeaveGroup", g.groupId(), memberId);
        return records;
    }

    // ---- offsets -------------------------------------------------------------------------

    /**
     * Whether {@code memberId} at {@code memberEpoch} may commit (or fetch) offsets of the group:
     * a request without a member (epoch below 0) only while the group is empty; a member only with
     * its current epoch. NONE, UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH, as Kafka answers.
     */
    public Errors validateOffsetAccess(ConsumerGroup g, String memberId, int memberEpoch, boolean commit) {
        boolean anonymous = memberEpoch < 0 && (memberId == null || memberId.isEmpty());
        if (anonymous) {
            return !commit || g.isEmpty() ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
        }
        ConsumerGroupMember m = memberId == null ? null : g.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch == m.epoch() ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    /** Topic names the group's members subscribe to (explicitly or through a regex), for offsets. */
    public Set<String> subscribedTopicNames(ConsumerGroup g) {
        Set<String> out = new TreeSet<>(g.subscribedTopics().keySet());
        g.members().values().forEach(m -> {
            if (m.subscription() != null) {
                out.addAll(m.subscription().topicNames());
            }
        });
        return out;
    }

    /** Records that delete an empty group (its offsets are the caller's to tombstone first). */
    public List<ConsumerGroupRecord> deletion(ConsumerGroup g) {
        List<ConsumerGroupRecord> out = new ArrayList<>();
        for (String memberId : g.members().keySet()) {
            out.addAll(ConsumerGroupHeartbeats.memberTombstones(g.groupId(), memberId));
        }
        g.targetAssignment().keySet().forEach(id -> {
            if (!g.members().containsKey(id)) {
                out.add(new ConsumerGroupRecord.TargetMember(g.groupId(), id, null));
            }
        });
        out.add(new ConsumerGroupRecord.TargetEpoch(g.groupId(), null));
        out.add(new ConsumerGroupRecord.SubscribedTopics(g.groupId(), null));
        out.add(new ConsumerGroupRecord.GroupEpoch(g.groupId(), null));
        return out;
    }

    /** The assignor the group uses now (the one most members ask for). */
    public String assignorName(ConsumerGroup g) {
        Map<String, MemberSubscription> subs = new HashMap<>();
        g.members().forEach((id, m) -> subs.put(id, m.subscription()));
        return heartbeats.assignorFor(subs).name();
    }
}
