package io.aloft.broker.group.share;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.ShardContext;
import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupListener;
import io.aloft.broker.share.ShareGroupSettingsSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share groups (KIP-932) of one {@code __consumer_offsets} partition: their state, rebuilt by
 * {@link #replay} and changed by nothing else, the heartbeat, and the session timers that remove
 * members. Operations return records to be replayed ({@link CoordinatorResult#of(List, Object)}).
 *
 * <p>Epochs as Kafka's: a new member, a member leaving or changing its subscription, or a change
 * of the subscribed topics (created, deleted, grown) bumps the group epoch; the next heartbeat of
 * any member then computes a new target assignment ({@link SimpleShareAssignor}) at that epoch,
 * and each member moves to it, epoch and partitions, at its own next heartbeat. There is no
 * revocation: a partition may be another member's too.
 *
 * <p>As in Kafka, only share partitions whose state is initialized in {@code __share_group_state}
 * are assigned, so no share partition starts on state that an initialization would then reset: a
 * heartbeat reports the partitions of the subscribed topics that are neither initialized nor being
 * initialized ({@link HeartbeatResult#toInitialize}); the caller initializes them and reports back
 * ({@link #initialized}), which bumps the group epoch, and the members get them at their next
 * heartbeat. Which are being initialized is kept in memory only: after a move of the coordinator
 * they are asked for again (harmless: nothing was assigned, so nothing was acknowledged).
 *
 * <p>Confined to the shard's thread (and the loading thread before {@link #onLoaded}).
 */
public final class ShareGroups {

    private static final Logger LOG = LoggerFactory.getLogger(ShareGroups.class);
    static final int JOIN_EPOCH = 0;
    static final int LEAVE_EPOCH = -1;

    private final ShareGroupConfig config;
    private final ShareGroupSettingsSource settings;
    private final ShardContext<ShareGroupRecord> ctx;
    private final ClusterTopics cluster;
    private final ShareGroupListener listener;
    private final Map<String, ShareGroup> groups = new HashMap<>();
    /** Per member (group id, member id): its session timer. */
    private final Map<List<String>, CoordinatorTimer.Scheduled> sessionTimers = new HashMap<>();
    /** Per group: share partitions whose initialization was started and has not finished. */
    private final Map<String, Map<Uuid, Set<Integer>>> initializing = new HashMap<>();

    public ShareGroups(ShareGroupConfig config, ShareGroupSettingsSource settings, ShardContext<ShareGroupRecord> ctx,
                       ClusterTopics cluster, ShareGroupListener listener) {
        this.config = config;
        this.settings = settings;
        this.ctx = ctx;
        this.cluster = cluster;
        this.listener = listener;
    }

    /** The group, or null if there is no share group of that id. */
    public ShareGroup group(String groupId) {
        return groups.get(groupId);
    }

    public Collection<ShareGroup> all() {
        return groups.values();
    }

    public ClusterTopics cluster() {
        return cluster;
    }

    // ---- replay --------------------------------------------------------------------------

    /** Applies a record, in log order: the only place share-group state changes. */
    public void replay(ShareGroupRecord record) {
        if (record instanceof ShareGroupRecord.GroupEpoch r && r.epoch() == null) {
            groups.remove(r.groupId());
            initializing.remove(r.groupId());
            return;
        }
        groups.computeIfAbsent(record.groupId(), ShareGroup::new).replay(record);
    }

    /** Every member gets a fresh session timeout to heartbeat in. */
    public void onLoaded() {
        for (ShareGroup g : groups.values()) {
            for (String memberId : g.members().keySet()) {
                scheduleSession(g.groupId(), memberId);
            }
        }
    }

    /** Timers are cancelled by the runtime; only the handles are dropped. */
    public void onUnloaded() {
        sessionTimers.clear();
        initializing.clear();
        groups.clear();
    }

    // ---- heartbeat -----------------------------------------------------------------------

    /**
     * A heartbeat's answer, and the share partitions the caller should initialize now (by topic
     * id; empty if none), then report with {@link #initialized}.
     */
    public record HeartbeatResult(ShareGroupHeartbeatResponseData response, Map<Uuid, Set<Integer>> toInitialize) {
    }

    /** Kafka's request checks (INVALID_REQUEST); null if the request passes. */
    public static ShareGroupHeartbeatResponseData validate(ShareGroupHeartbeatRequestData req) {
        String why = null;
        if (req.memberId() == null || req.memberId().isEmpty()) {
            return error(Errors.INVALID_REQUEST, null); // Kafka 4.3 answers this one without a message
        } else if (req.memberId().trim().isEmpty()) {
            why = "MemberId can't be empty.";
        } else if (req.groupId() == null || req.groupId().trim().isEmpty()) {
            why = "GroupId can't be empty.";
        } else if (req.rackId() != null && req.rackId().trim().isEmpty()) {
            why = "RackId can't be empty.";
        } else if (req.memberEpoch() == JOIN_EPOCH
                && (req.subscribedTopicNames() == null || req.subscribedTopicNames().isEmpty())) {
            why = "SubscribedTopicNames must be set in first request.";
        } else if (req.memberEpoch() < LEAVE_EPOCH) {
            why = "MemberEpoch is invalid.";
        }
        return why == null ? null : error(Errors.INVALID_REQUEST, why);
    }

    /**
     * ShareGroupHeartbeat of a share group (or a new one), validated ({@link #validate}). The caller
     * has checked that the id is not another type's group.
     */
    public CoordinatorResult<HeartbeatResult, ShareGroupRecord> heartbeat(ShareGroupHeartbeatRequestData req,
            String clientId, String clientHost) {
        String groupId = req.groupId();
        String memberId = req.memberId();
        int epoch = req.memberEpoch();
        ShareGroup group = groups.get(groupId);
        if (epoch == LEAVE_EPOCH) {
            return leave(group, groupId, memberId);
        }
        if (group == null && epoch != JOIN_EPOCH) {
            return refused(error(Errors.GROUP_ID_NOT_FOUND, "Share group " + groupId + " not found."));
        }
        ShareGroup g = group != null ? group : new ShareGroup(groupId);
        ShareGroupMember member = g.member(memberId);
        if (epoch == JOIN_EPOCH) {
            int maxSize = config.get(ShareGroupConfig.MAX_SIZE);
            if (member == null && g.members().size() >= maxSize) {
                return refused(error(Errors.GROUP_MAX_SIZE_REACHED,
                        "The share group has reached its maximum capacity of " + maxSize + " members."));
            }
        } else if (member == null) {
            return refused(error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group "
                    + groupId + "."));
        } else if (epoch > member.epoch()) {
            return refused(error(Errors.FENCED_MEMBER_EPOCH, "The share group member has a greater member epoch ("
                    + epoch + ") than the one known by the group coordinator (" + member.epoch()
                    + "). The member must abandon all its partitions and rejoin."));
        } else if (epoch < member.epoch() && epoch != member.current().previousEpoch()) {
            return refused(error(Errors.FENCED_MEMBER_EPOCH, "The share group member has a smaller member epoch ("
                    + epoch + ") than the one known by the group coordinator (" + member.epoch()
                    + "), and it does not match the previous member epoch (" + member.current().previousEpoch()
                    + "). The member must abandon all its partitions and rejoin."));
        }
        List<ShareGroupRecord> records = new ArrayList<>();
        ShareGroupRecord.Metadata old = member == null ? null : member.metadata();
        ShareGroupRecord.Metadata meta = new ShareGroupRecord.Metadata(
                req.rackId() != null || old == null ? req.rackId() : old.rackId(), clientId, clientHost,
                req.subscribedTopicNames() != null ? new ArrayList<>(new TreeSet<>(req.subscribedTopicNames()))
                        : old == null ? List.of() : old.topicNames());
        if (!meta.equals(old)) {
            records.add(new ShareGroupRecord.MemberMetadata(groupId, memberId, meta));
        }
        Map<String, Set<String>> subscriptions = subscriptions(g, memberId, meta);
        Map<String, TopicMetadata> topics = resolve(subscriptions);
        boolean bump = member == null || old == null || !old.topicNames().equals(meta.topicNames());
        if (!topics.equals(g.subscribedTopics())) {
            records.add(new ShareGroupRecord.SubscribedTopics(groupId, topics));
            bump = true;
        }
        int groupEpoch = g.groupEpoch();
        if (bump) {
            groupEpoch++;
            records.add(new ShareGroupRecord.GroupEpoch(groupId, groupEpoch));
        }
        Map<String, Assignment> target = g.targetAssignment();
        int targetEpoch = g.targetEpoch();
        if (groupEpoch > targetEpoch) {
            Map<String, Assignment> next = SimpleShareAssignor.assign(subscriptions, topics, g.initialized());
            for (Map.Entry<String, Assignment> e : next.entrySet()) {
                if (!e.getValue().equals(target.get(e.getKey()))) {
                    records.add(new ShareGroupRecord.TargetMember(groupId, e.getKey(), e.getValue()));
                }
            }
            for (String gone : target.keySet()) {
                if (!next.containsKey(gone)) {
                    records.add(new ShareGroupRecord.TargetMember(groupId, gone, null));
                }
            }
            records.add(new ShareGroupRecord.TargetEpoch(groupId, groupEpoch));
            target = next;
            targetEpoch = groupEpoch;
        }
        Assignment assigned = target.getOrDefault(memberId, Assignment.EMPTY);
        ShareGroupRecord.Current current = member == null ? ShareGroupMember.JOINING : member.current();
        ShareGroupRecord.Current next = current.epoch() == targetEpoch && current.assigned().equals(assigned)
                ? current : new ShareGroupRecord.Current(targetEpoch, current.epoch(), assigned);
        if (member == null || !next.equals(member.current())) {
            records.add(new ShareGroupRecord.CurrentMember(groupId, memberId, next));
        }
        ShareGroupHeartbeatResponseData response = new ShareGroupHeartbeatResponseData().setMemberId(memberId)
                .setMemberEpoch(targetEpoch).setHeartbeatIntervalMs(settings.settings(groupId).heartbeatIntervalMs());
        if (epoch == JOIN_EPOCH || !assigned.equals(member.assigned())) {
            response.setAssignment(responseAssignment(assigned));
        }
        if (member == null) {
            LOG.debug("share group {}: member {} joined", groupId, memberId);
        }
        scheduleSession(groupId, memberId);
        return CoordinatorResult.of(records, new HeartbeatResult(response, startInitializing(g, topics)));
    }

    private CoordinatorResult<HeartbeatResult, ShareGroupRecord> leave(ShareGroup g, String groupId, String memberId) {
        if (g == null) {
            return refused(error(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found."));
        }
        if (g.member(memberId) == null) {
            return refused(error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group "
                    + groupId + "."));
        }
        LOG.debug("share group {}: member {} left", groupId, memberId);
        List<ShareGroupRecord> records = remove(g, memberId);
        return CoordinatorResult.of(records, new HeartbeatResult(new ShareGroupHeartbeatResponseData()
                .setMemberId(memberId).setMemberEpoch(LEAVE_EPOCH), Map.of()));
    }

    /**
     * The records that remove a member (the group epoch goes up: the others get a new target at
     * their next heartbeat); its session timer stops and the listener hears it left.
     */
    private List<ShareGroupRecord> remove(ShareGroup g, String memberId) {
        cancelSession(g.groupId(), memberId);
        List<ShareGroupRecord> records = new ArrayList<>(memberTombstones(g.groupId(), memberId));
        ShareGroupMember gone = g.member(memberId);
        Map<String, Set<String>> rest = subscriptions(g, memberId, null);
        Map<String, TopicMetadata> topics = resolve(rest);
        if (!topics.equals(g.subscribedTopics())) {
            records.add(new ShareGroupRecord.SubscribedTopics(g.groupId(), topics));
        }
        records.add(new ShareGroupRecord.GroupEpoch(g.groupId(), g.groupEpoch() + 1));
        if (gone != null) {
            listener.memberLeft(g.groupId(), memberId);
        }
        return records;
    }

    private static List<ShareGroupRecord> memberTombstones(String groupId, String memberId) {
        return List.of(new ShareGroupRecord.CurrentMember(groupId, memberId, null),
                new ShareGroupRecord.TargetMember(groupId, memberId, null),
                new ShareGroupRecord.MemberMetadata(groupId, memberId, null));
    }

    /** Each member's subscribed topic names, {@code memberId}'s replaced by {@code meta} (null: left out). */
    private static Map<String, Set<String>> subscriptions(ShareGroup g, String memberId,
                                                          ShareGroupRecord.Metadata meta) {
        Map<String, Set<String>> out = new TreeMap<>();
        g.members().forEach((id, m) -> {
            if (!id.equals(memberId) && m.metadata() != null) {
                out.put(id, Set.copyOf(m.metadata().topicNames()));
            }
        });
        if (meta != null) {
            out.put(memberId, Set.copyOf(meta.topicNames()));
        }
        return out;
    }

    /** The subscribed topics that exist, by name. */
    private Map<String, TopicMetadata> resolve(Map<String, Set<String>> subscriptions) {
        Map<String, TopicMetadata> out = new TreeMap<>();
        subscriptions.values().forEach(names -> names.forEach(n -> {
            TopicMetadata t = cluster.topic(n);
            if (t != null) {
                out.put(n, t);
            }
        }));
        return out;
    }

    // ---- timers --------------------------------------------------------------------------

    private void scheduleSession(String groupId, String memberId) {
        List<String> key = List.of(groupId, memberId);
        cancelSession(groupId, memberId);
        CoordinatorTimer.Scheduled[] self = new CoordinatorTimer.Scheduled[1];
        self[0] = ctx.schedule(settings.settings(groupId).sessionTimeoutMs(), "share-session-timeout", () -> {
            sessionTimers.remove(key, self[0]);
            ShareGroup g = groups.get(groupId);
            if (g == null || g.member(memberId) == null) {
                return CoordinatorResult.of(List.of(), null);
            }
            LOG.info("share group {}: member {} removed: its session timed out", groupId, memberId);
            return CoordinatorResult.of(remove(g, memberId), null);
        });
        sessionTimers.put(key, self[0]);
    }

    private void cancelSession(String groupId, String memberId) {
        CoordinatorTimer.Scheduled t = sessionTimers.remove(List.of(groupId, memberId));
        if (t != null) {
            t.cancel();
        }
    }

    // ---- share partition state -----------------------------------------------------------

    /**
     * The partitions of the subscribed {@code topics} neither initialized nor being initialized, now
     * marked as being initialized.
     */
    private Map<Uuid, Set<Integer>> startInitializing(ShareGroup g, Map<String, TopicMetadata> topics) {
        Map<Uuid, Set<Integer>> busy = initializing.computeIfAbsent(g.groupId(), id -> new HashMap<>());
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        for (TopicMetadata t : topics.values()) {
            for (int p = 0; p < t.numPartitions(); p++) {
                if (!g.initialized().contains(t.id(), p) && !busy.getOrDefault(t.id(), Set.of()).contains(p)) {
                    out.computeIfAbsent(t.id(), x -> new TreeSet<>()).add(p);
                    busy.computeIfAbsent(t.id(), x -> new TreeSet<>()).add(p);
                }
            }
        }
        if (busy.isEmpty()) {
            initializing.remove(g.groupId());
        }
        return out;
    }

    /**
     * The caller finished initializing {@code done} and gave up on {@code failed} (asked for again at
     * a later heartbeat): records adding {@code done} to the group's initialized partitions and
     * bumping the group epoch, so the next heartbeat assigns them.
     */
    public CoordinatorResult<Void, ShareGroupRecord> initialized(String groupId, Map<Uuid, Set<Integer>> done,
                                                                 Map<Uuid, Set<Integer>> failed) {
        Map<Uuid, Set<Integer>> busy = initializing.get(groupId);
        if (busy != null) {
            for (Map<Uuid, Set<Integer>> m : List.of(done, failed)) {
                m.forEach((topic, parts) -> {
                    Set<Integer> b = busy.get(topic);
                    if (b != null) {
                        b.removeAll(parts);
                        if (b.isEmpty()) {
                            busy.remove(topic);
                        }
                    }
                });
            }
            if (busy.isEmpty()) {
                initializing.remove(groupId);
            }
        }
        ShareGroup g = groups.get(groupId);
        if (g == null || done.isEmpty()) {
            return CoordinatorResult.of(List.of(), null); // deleted meanwhile: its state goes with it
        }
        return CoordinatorResult.of(List.of(new ShareGroupRecord.InitializedPartitions(groupId,
                union(g.initialized(), done, Set.of())), new ShareGroupRecord.GroupEpoch(groupId, g.groupEpoch() + 1)),
                null);
    }

    /**
     * Records that add {@code added} to and drop the topics {@code removedTopics} from the
     * initialized partitions (the admin offsets APIs), making an empty group if there is none and
     * something is added. Null if the group has members (GROUP_NOT_EMPTY for the caller).
     */
    public List<ShareGroupRecord> updateInitialized(String groupId, Map<Uuid, Set<Integer>> added,
                                                    Set<Uuid> removedTopics) {
        ShareGroup g = groups.get(groupId);
        if (g != null && !g.isEmpty()) {
            return null;
        }
        List<ShareGroupRecord> records = new ArrayList<>();
        if (g == null) {
            if (added.isEmpty()) {
                return records;
            }
            records.add(new ShareGroupRecord.GroupEpoch(groupId, 0));
        }
        Assignment now = union(g == null ? Assignment.EMPTY : g.initialized(), added, removedTopics);
        if (g == null || !now.equals(g.initialized())) {
            records.add(new ShareGroupRecord.InitializedPartitions(groupId, now));
        }
        return records;
    }

    private static Assignment union(Assignment base, Map<Uuid, Set<Integer>> added, Set<Uuid> removedTopics) {
        Map<Uuid, Set<Integer>> all = new HashMap<>();
        base.partitions().forEach((t, p) -> all.put(t, new TreeSet<>(p)));
        added.forEach((t, p) -> all.computeIfAbsent(t, x -> new TreeSet<>()).addAll(p));
        removedTopics.forEach(all::remove);
        return Assignment.of(all);
    }

    // ---- deletion ------------------------------------------------------------------------

    /** Records that delete an empty group (the caller deletes the state of its initialized partitions). */
    public List<ShareGroupRecord> deletion(ShareGroup g) {
        List<ShareGroupRecord> out = new ArrayList<>();
        for (String memberId : g.members().keySet()) {
            cancelSession(g.groupId(), memberId);
            out.addAll(memberTombstones(g.groupId(), memberId));
        }
        g.targetAssignment().keySet().forEach(id -> {
            if (!g.members().containsKey(id)) {
                out.add(new ShareGroupRecord.TargetMember(g.groupId(), id, null));
            }
        });
        out.add(new ShareGroupRecord.InitializedPartitions(g.groupId(), null));
        out.add(new ShareGroupRecord.TargetEpoch(g.groupId(), null));
        out.add(new ShareGroupRecord.SubscribedTopics(g.groupId(), null));
        out.add(new ShareGroupRecord.GroupEpoch(g.groupId(), null));
        return out;
    }

    // ---- helpers -------------------------------------------------------------------------

    static ShareGroupHeartbeatResponseData error(Errors error, String message) {
        return new ShareGroupHeartbeatResponseData().setErrorCode(error.code()).setErrorMessage(message);
    }

    private static CoordinatorResult<HeartbeatResult, ShareGroupRecord> refused(ShareGroupHeartbeatResponseData r) {
        return CoordinatorResult.of(new HeartbeatResult(r, Map.of()));
    }

    static ShareGroupHeartbeatResponseData.Assignment responseAssignment(Assignment a) {
        List<ShareGroupHeartbeatResponseData.TopicPartitions> topics = new ArrayList<>();
        a.partitions().forEach((topic, parts) -> topics.add(new ShareGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(topic).setPartitions(new ArrayList<>(parts))));
        return new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(topics);
    }
}
