package io.aloft.broker.group.consumer;

import io.aloft.broker.group.consumer.assignor.PartitionAssignor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The ConsumerGroupHeartbeat operation (KIP-848): from a request and the group as it is, the
 * records that carry the member's join, heartbeat or leave, and the response. It changes nothing
 * itself: {@link ConsumerGroups} replays the records, at once and again on every load.
 *
 * <p>One heartbeat (a) applies the member's subscription changes, (b) bumps the group epoch when
 * the membership, a subscription or the subscribed topics changed, (c) computes a new target
 * assignment when the group epoch passed the target's, and (d) moves the member one step towards
 * its target ({@link CurrentAssignmentBuilder}). Confined to the shard's thread.
 */
final class ConsumerGroupHeartbeats {

    /** Epoch a member sends to join (or rejoin after being fenced). */
    static final int JOIN_EPOCH = 0;
    /** Epoch a member sends to leave the group. */
    static final int LEAVE_EPOCH = -1;

    /** What the heartbeat did to its member, for the timers. */
    enum Effect { NONE, ACTIVE, LEFT, AWAY }

    /**
     * The result: response, records, and what became of the member.
     *
     * @param replaced a static member the heartbeat's member took over from (its timers go), or null
     */
    record Outcome(ConsumerGroupHeartbeatResponseData response, List<ConsumerGroupRecord> records, Effect effect,
                   String groupId, String memberId, MemberAssignment current, int rebalanceTimeoutMs,
                   String replaced) {
    }

    private final ConsumerGroupConfig config;
    private final ClusterTopics cluster;
    private final Subscriptions subscriptions;

    ConsumerGroupHeartbeats(ConsumerGroupConfig config, ClusterTopics cluster, Subscriptions subscriptions) {
        this.config = config;
        this.cluster = cluster;
        this.subscriptions = subscriptions;
    }

    static Outcome error(Errors error, String message) {
        return new Outcome(new ConsumerGroupHeartbeatResponseData().setErrorCode(error.code()).setErrorMessage(message)
                .setMemberEpoch(0), List.of(), Effect.NONE, null, null, null, 0, null);
    }

    /**
     * The request's checks before any group is looked at, as Kafka makes them; null if it is valid.
     */
    Outcome validate(ConsumerGroupHeartbeatRequestData req, short version) {
        int epoch = req.memberEpoch();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return error(Errors.INVALID_REQUEST, "GroupId can't be empty.");
        }
        if (req.instanceId() != null && req.instanceId().isEmpty()) {
            return error(Errors.INVALID_REQUEST, "InstanceId can't be empty.");
        }
        if (req.rackId() != null && req.rackId().isEmpty()) {
            return error(Errors.INVALID_REQUEST, "RackId can't be empty.");
        }
        boolean noMemberId = req.memberId() == null || req.memberId().isEmpty();
        if (noMemberId && (version >= 1 || epoch != JOIN_EPOCH)) {
            return error(Errors.INVALID_REQUEST, "MemberId can't be empty.");
        }
        if (epoch == JOIN_EPOCH) {
            if (req.rebalanceTimeoutMs() == -1) {
                return error(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.");
            }
            if (req.topicPartitions() == null || !req.topicPartitions().isEmpty()) {
                return error(Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.");
            }
            if (req.subscribedTopicNames() == null && req.subscribedTopicRegex() == null) {
                return error(Errors.INVALID_REQUEST, version >= 1
                        ? "SubscribedTopicNames or SubscribedTopicRegex must be set in first request."
                        : "SubscribedTopicNames must be set in first request.");
            }
        } else if (epoch == ConsumerGroupMember.STATIC_AWAY_EPOCH) {
            if (req.instanceId() == null) {
                return error(Errors.INVALID_REQUEST, "InstanceId can't be null.");
            }
        } else if (epoch < LEAVE_EPOCH) {
            return error(Errors.INVALID_REQUEST, "MemberEpoch is invalid.");
        }
        if (req.serverAssignor() != null && config.assignor(req.serverAssignor()) == null) {
            return error(Errors.UNSUPPORTED_ASSIGNOR, "ServerAssignor " + req.serverAssignor()
                    + " is not supported. Supported assignors: " + String.join(", ", config.assignorNames()) + ".");
        }
        String regex = req.subscribedTopicRegex();
        if (regex != null && !regex.isEmpty() && !subscriptions.isValid(regex)) {
            return error(Errors.INVALID_REGULAR_EXPRESSION, "SubscribedTopicRegex `" + regex + "` is not a valid "
                    + "regular expression.");
        }
        return null;
    }

    // ---- leave ---------------------------------------------------------------------------

    /** Epoch -1 (leave) or -2 (a static member leaves for now, keeping its assignment). */
    Outcome leave(ConsumerGroup group, ConsumerGroupHeartbeatRequestData req) {
        String groupId = req.groupId();
        ConsumerGroupMember member = group == null ? null : group.member(req.memberId());
        if (member == null && group != null && req.instanceId() != null) {
            ConsumerGroupMember holder = group.staticMember(req.instanceId());
            if (holder != null && !holder.memberId().equals(req.memberId())) {
                return error(Errors.FENCED_INSTANCE_ID, "Static member " + req.memberId() + " with instance id "
                        + req.instanceId() + " is not the member holding it.");
            }
        }
        if (group == null) {
            return error(Errors.GROUP_ID_NOT_FOUND, "Consumer group " + groupId + " not found.");
        }
        if (member == null) {
            return error(Errors.UNKNOWN_MEMBER_ID, "Member " + req.memberId() + " is not a member of group "
                    + groupId + ".");
        }
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                .setMemberId(member.memberId()).setMemberEpoch(req.memberEpoch());
        if (req.memberEpoch() == ConsumerGroupMember.STATIC_AWAY_EPOCH && member.instanceId() != null) {
            MemberAssignment c = member.current();
            MemberAssignment away = new MemberAssignment(ConsumerGroupMember.STATIC_AWAY_EPOCH, c.previousEpoch(),
                    c.state() == MemberState.UNREVOKED_PARTITIONS ? MemberState.STABLE : c.state(), c.assigned(),
                    Assignment.EMPTY);
            List<ConsumerGroupRecord> records =
                    List.of(new ConsumerGroupRecord.CurrentMember(groupId, member.memberId(), away));
            return new Outcome(response, records, Effect.AWAY, groupId, member.memberId(), away, 0, null);
        }
        response.setMemberEpoch(LEAVE_EPOCH);
        return new Outcome(response, removal(group, member.memberId()), Effect.LEFT, groupId, member.memberId(),
                null, 0, null);
    }

    /** The records that remove a member (left, fenced or timed out) and bump the group epoch. */
    List<ConsumerGroupRecord> removal(ConsumerGroup group, String memberId) {
        String groupId = group.groupId();
        List<ConsumerGroupRecord> records = new ArrayList<>(memberTombstones(groupId, memberId));
        List<MemberSubscription> rest = new ArrayList<>();
        group.members().forEach((id, m) -> {
            if (!id.equals(memberId)) {
                rest.add(m.subscription());
            }
        });
        Map<String, TopicMetadata> topics = subscriptions.resolve(rest, cluster);
        if (!topics.equals(group.subscribedTopics())) {
            records.add(new ConsumerGroupRecord.SubscribedTopics(groupId, topics));
        }
        records.add(new ConsumerGroupRecord.GroupEpoch(groupId, group.groupEpoch() + 1));
        return records;
    }

    static List<ConsumerGroupRecord> memberTombstones(String groupId, String memberId) {
        return List.of(new ConsumerGroupRecord.CurrentMember(groupId, memberId, null),
                new ConsumerGroupRecord.TargetMember(groupId, memberId, null),
                new ConsumerGroupRecord.MemberMetadata(groupId, memberId, null));
    }

    // ---- join and heartbeat --------------------------------------------------------------

    /**
     * A join (epoch 0) or a heartbeat (epoch above 0) of a validated request.
     *
     * @param group the group, or null if it does not exist (only a join creates it)
     * @param generatedMemberId the member id for a v0 join without one
     */
    Outcome heartbeat(ConsumerGroup group, ConsumerGroupHeartbeatRequestData req, String clientId, String clientHost,
                      boolean fullRequest, String generatedMemberId) {
        String groupId = req.groupId();
        int epoch = req.memberEpoch();
        String memberId = req.memberId() == null || req.memberId().isEmpty() ? generatedMemberId : req.memberId();
        if (group == null && epoch != JOIN_EPOCH) {
            return error(Errors.GROUP_ID_NOT_FOUND, "Consumer group " + groupId + " not found.");
        }
        ConsumerGroup g = group != null ? group : new ConsumerGroup(groupId);
        Assignment owned = owned(req);
        Who who = epoch == JOIN_EPOCH ? joining(g, req, memberId) : beating(g, memberId, epoch, owned);
        if (who.refused() != null) {
            return who.refused();
        }
        List<ConsumerGroupRecord> records = new ArrayList<>();
        if (who.replaced() != null) {
            records.addAll(memberTombstones(groupId, who.replaced().memberId()));
        }
        MemberSubscription old = who.member() == null ? null : who.member().subscription();
        MemberSubscription sub = updatedSubscription(old, req, clientId, clientHost, epoch == JOIN_EPOCH);
        Map<String, MemberSubscription> members = new TreeMap<>(); // as they will be
        g.members().forEach((id, m) -> members.put(id, m.subscription()));
        if (who.replaced() != null) {
            members.remove(who.replaced().memberId());
        }
        members.put(memberId, sub);
        Subscribed subscribed = subscribe(g, memberId, old, sub, who.isNew(), members, records);
        int groupEpoch = subscribed.groupEpoch();
        Map<String, Assignment> target = target(g, memberId, who.replaced(), subscribed, members, records);
        int targetEpoch = Math.max(groupEpoch, g.targetEpoch());

        MemberAssignment current = who.member() == null ? MemberAssignment.JOINING : who.member().current();
        String previousOwner = who.replaced() == null ? null : who.replaced().memberId();
        MemberAssignment next = CurrentAssignmentBuilder.next(memberId, current, targetEpoch,
                target.getOrDefault(memberId, Assignment.EMPTY), owned, (t, p) -> {
                    String owner = g.owner(t, p);
                    return owner != null && owner.equals(previousOwner) ? memberId : owner;
                });
        ConsumerGroupMember existing = g.member(memberId);
        if (existing == null || !next.equals(existing.current())) {
            records.add(new ConsumerGroupRecord.CurrentMember(groupId, memberId, next));
        }
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                .setMemberId(memberId).setMemberEpoch(next.epoch()).setHeartbeatIntervalMs(config.heartbeatIntervalMs());
        if (epoch == JOIN_EPOCH || fullRequest || !next.assigned().equals(current.assigned())) {
            response.setAssignment(responseAssignment(next.assigned()));
        }
        return new Outcome(response, records, Effect.ACTIVE, groupId, memberId, next, sub.rebalanceTimeoutMs(),
                previousOwner);
    }

    /**
     * The member a heartbeat is for, as it stands before the heartbeat.
     *
     * @param member null for a new member
     * @param replaced the static member (away) a joining member with its instance id takes over, or null
     * @param refused the error, if the heartbeat is refused
     */
    private record Who(ConsumerGroupMember member, ConsumerGroupMember replaced, Outcome refused) {
        boolean isNew() {
            return member == null || replaced != null;
        }

        static Who refused(Outcome error) {
            return new Who(null, null, error);
        }
    }

    /** A join (epoch 0): a new member, a member rejoining, or one taking over a static member that is away. */
    private Who joining(ConsumerGroup g, ConsumerGroupHeartbeatRequestData req, String memberId) {
        ConsumerGroupMember member = g.member(memberId);
        ConsumerGroupMember holder = g.staticMember(req.instanceId());
        if (holder != null && !holder.memberId().equals(memberId)) {
            if (!holder.isAway()) {
                return Who.refused(error(Errors.UNRELEASED_INSTANCE_ID, "Static member " + holder.memberId()
                        + " with instance id " + req.instanceId() + " is still active in group " + g.groupId() + "."));
            }
            // The new member takes the old one's place: its assignment, target and epoch.
            return new Who(new ConsumerGroupMember(memberId, holder.subscription(), holder.current()), holder, null);
        }
        if (member == null && g.members().size() >= config.maxSize()) {
            return Who.refused(error(Errors.GROUP_MAX_SIZE_REACHED,
                    "The consumer group has reached its maximum capacity of " + config.maxSize() + " members."));
        }
        // A member that rejoins (after being fenced) has given up its partitions.
        return new Who(member == null ? null : member.with(MemberAssignment.JOINING), null, null);
    }

    /** A heartbeat of a member of the group (epoch above 0): known, and with its epoch. */
    private static Who beating(ConsumerGroup g, String memberId, int epoch, Assignment owned) {
        ConsumerGroupMember member = g.member(memberId);
        if (member == null) {
            return Who.refused(error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group "
                    + g.groupId() + "."));
        }
        Outcome fenced = checkEpoch(member, epoch, owned);
        return fenced != null ? Who.refused(fenced) : new Who(member, null, null);
    }

    /** The group epoch and subscribed topics after a heartbeat. */
    private record Subscribed(int groupEpoch, Map<String, TopicMetadata> topics) {
    }

    /**
     * Records the member's subscription if it changed, and the group's subscribed topics and epoch
     * if they changed (a new member, another subscription or assignor, topics created, deleted or
     * grown).
     */
    private Subscribed subscribe(ConsumerGroup g, String memberId, MemberSubscription old, MemberSubscription sub,
                          boolean isNew, Map<String, MemberSubscription> members, List<ConsumerGroupRecord> records) {
        if (!sub.equals(old) || isNew) {
            records.add(new ConsumerGroupRecord.MemberMetadata(g.groupId(), memberId, sub));
        }
        boolean bump = old == null || !Objects.equals(old.topicNames(), sub.topicNames())
                || !Objects.equals(old.topicRegex(), sub.topicRegex())
                || !Objects.equals(old.serverAssignor(), sub.serverAssignor());
        Map<String, TopicMetadata> topics = subscriptions.resolve(members.values(), cluster);
        if (!topics.equals(g.subscribedTopics())) {
            records.add(new ConsumerGroupRecord.SubscribedTopics(g.groupId(), topics));
            bump = true;
        }
        if (!bump) {
            return new Subscribed(g.groupEpoch(), topics);
        }
        records.add(new ConsumerGroupRecord.GroupEpoch(g.groupId(), g.groupEpoch() + 1));
        return new Subscribed(g.groupEpoch() + 1, topics);
    }

    /**
     * The target assignment: a new one from the assignor when the group epoch passed the target's
     * (with its records), else the current one (a replaced static member's part moved to its successor).
     */
    private Map<String, Assignment> target(ConsumerGroup g, String memberId, ConsumerGroupMember replaced,
                                           Subscribed subscribed, Map<String, MemberSubscription> members,
                                           List<ConsumerGroupRecord> records) {
        int groupEpoch = subscribed.groupEpoch();
        Map<String, Assignment> target = new HashMap<>(g.targetAssignment());
        if (replaced != null) {
            target.put(memberId, target.getOrDefault(replaced.memberId(), Assignment.EMPTY));
            target.remove(replaced.memberId());
        }
        if (groupEpoch <= g.targetEpoch()) {
            if (replaced != null) {
                records.add(new ConsumerGroupRecord.TargetMember(g.groupId(), memberId, target.get(memberId)));
            }
            return target;
        }
        Map<String, Assignment> next = assign(members, subscribed.topics(), target);
        next.forEach((id, a) -> {
            if (!a.equals(target.get(id))) {
                records.add(new ConsumerGroupRecord.TargetMember(g.groupId(), id, a));
            }
        });
        records.add(new ConsumerGroupRecord.TargetEpoch(g.groupId(), groupEpoch));
        return next;
    }

    /**
     * FENCED_MEMBER_EPOCH for an epoch the member does not have, except the one before it sent with
     * partitions it still has: the response to its last heartbeat was lost, and it may go on.
     */
    private static Outcome checkEpoch(ConsumerGroupMember member, int epoch, Assignment owned) {
        int current = member.epoch();
        if (epoch == current) {
            return null;
        }
        if (epoch < current && epoch == member.current().previousEpoch() && owned != null
                && owned.minus(member.current().assigned()).isEmpty()) {
            return null;
        }
        return error(Errors.FENCED_MEMBER_EPOCH, "The consumer group member has a "
                + (epoch > current ? "greater" : "smaller") + " member epoch (" + epoch
                + ") than the one known by the group coordinator (" + current + ").");
    }

    private static MemberSubscription updatedSubscription(MemberSubscription old, ConsumerGroupHeartbeatRequestData req,
                                                          String clientId, String clientHost, boolean join) {
        List<String> names = req.subscribedTopicNames();
        String regex = req.subscribedTopicRegex();
        if (old == null || join) {
            // A (re)join states the whole subscription.
            return new MemberSubscription(req.instanceId(), req.rackId(), clientId, clientHost,
                    names == null ? List.of() : names, regex == null || regex.isEmpty() ? null : regex,
                    req.serverAssignor(), req.rebalanceTimeoutMs());
        }
        return new MemberSubscription(
                req.instanceId() != null ? req.instanceId() : old.instanceId(),
                req.rackId() != null ? req.rackId() : old.rackId(),
                clientId, clientHost,
                names != null ? names : old.topicNames(),
                regex != null ? (regex.isEmpty() ? null : regex) : old.topicRegex(),
                req.serverAssignor() != null ? req.serverAssignor() : old.serverAssignor(),
                req.rebalanceTimeoutMs() != -1 ? req.rebalanceTimeoutMs() : old.rebalanceTimeoutMs());
    }

    /** The assignor the most members ask for (ties: the configured order); the default if none asks. */
    PartitionAssignor assignorFor(Map<String, MemberSubscription> members) {
        Map<String, Integer> votes = new HashMap<>();
        members.values().forEach(s -> {
            if (s != null && s.serverAssignor() != null) {
                votes.merge(s.serverAssignor(), 1, Integer::sum);
            }
        });
        PartitionAssignor best = config.defaultAssignor();
        int bestVotes = 0;
        for (PartitionAssignor a : config.assignors()) {
            int v = votes.getOrDefault(a.name(), 0);
            if (v > bestVotes) {
                best = a;
                bestVotes = v;
            }
        }
        return best;
    }

    /** The new target assignment of {@code members}, sticky to {@code previous}. */
    Map<String, Assignment> assign(Map<String, MemberSubscription> members, Map<String, TopicMetadata> topics,
                                   Map<String, Assignment> previous) {
        Map<String, PartitionAssignor.MemberSpec> specs = new TreeMap<>();
        members.forEach((id, s) -> {
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            previous.getOrDefault(id, Assignment.EMPTY).partitions().forEach((t, p) -> current.put(t, new TreeSet<>(p)));
            specs.put(id, new PartitionAssignor.MemberSpec(subscriptions.topicsOf(s, topics), current));
        });
        Map<Uuid, Integer> counts = new HashMap<>();
        topics.values().forEach(t -> counts.put(t.id(), t.numPartitions()));
        Map<String, Map<Uuid, Set<Integer>>> result = assignorFor(members).assign(specs, counts);
        Map<String, Assignment> out = new TreeMap<>();
        members.keySet().forEach(id -> out.put(id, Assignment.of(result.getOrDefault(id, Map.of()))));
        return out;
    }

    private static Assignment owned(ConsumerGroupHeartbeatRequestData req) {
        if (req.topicPartitions() == null) {
            return null;
        }
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : req.topicPartitions()) {
            out.computeIfAbsent(tp.topicId(), t -> new TreeSet<>()).addAll(tp.partitions());
        }
        return Assignment.of(out);
    }

    static ConsumerGroupHeartbeatResponseData.Assignment responseAssignment(Assignment a) {
        List<ConsumerGroupHeartbeatResponseData.TopicPartitions> topics = new ArrayList<>();
        a.partitions().forEach((topic, parts) -> topics.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(topic).setPartitions(new ArrayList<>(parts))));
        return new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(topics);
    }
}
