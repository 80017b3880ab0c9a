package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorTimer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * The state of one classic group: membership, generation and chosen protocol, and the committed
 * offsets of its id ({@link GroupOffsets}, kept by the shard).
 *
 * <p>Confined to the thread of the shard that holds it ({@link GroupCoordinatorShard}): every
 * request and timer of the group runs there, one at a time, so no field needs a lock. Futures of
 * waiting requests are completed on that thread; whatever a caller chains onto them must not block
 * (the request handlers only turn them into responses), and a call back into the coordinator is
 * queued behind the current event, never run inside it.
 */
final class ClassicGroup {

    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    final String groupId;
    final int partition;

    GroupState state = GroupState.EMPTY;
    long stateTimestampMs;
    int generationId;
    String protocolType;
    String protocolName;
    String leaderId;

    /** In join order: the first member becomes leader when there is none. */
    final Map<String, GroupMember> members = new LinkedHashMap<>();
    /** group.instance.id to the member id currently holding it. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, to the token of their expiry timer. */
    final Map<String, Long> pendingMembers = new HashMap<>();

    /** The pending-join timer (rebalance timeout or initial delay); token tells stale firings apart. */
    CoordinatorTimer.Scheduled joinTimer;
    long joinTimerToken;
    /** Members that got this generation's JoinGroup answer but have not sent SyncGroup yet. */
    final Set<String> pendingSync = new HashSet<>();
    /** Fires a rebalance timeout after the join completed, removing members still in {@link #pendingSync}. */
    CoordinatorTimer.Scheduled syncTimer;
    long syncTimerToken;
    /** True while the initial-rebalance delay runs: the join must not complete early then. */
    boolean initialDelayActive;
    /** A member joined while the initial delay ran, which extends the delay once more. */
    boolean newMemberAdded;
    long initialDelayRemainingMs;

    /** The offsets of this group's id. */
    final GroupOffsets offsets;
    private long nextSequence;

    ClassicGroup(String groupId, int partition, long nowMs, GroupOffsets offsets) {
        this.groupId = groupId;
        this.partition = partition;
        this.stateTimestampMs = nowMs;
        this.offsets = offsets;
    }

    /** Completes a waiting request's future (on the shard's thread, like everything here). */
    <T> void complete(CompletableFuture<T> future, T value) {
        future.complete(value);
    }

    long nextSequence() {
        return ++nextSequence;
    }

    // ---- state ---------------------------------------------------------------------------

    boolean is(GroupState s) {
        return state == s;
    }

    void transitionTo(GroupState s, long nowMs) {
        state = s;
        stateTimestampMs = nowMs;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    GroupMember member(String memberId) {
        return members.get(memberId);
    }

    void add(GroupMember m) {
        if (members.isEmpty()) {
            protocolType = m.protocolType;
        }
        members.put(m.memberId, m);
        if (m.isStatic()) {
            staticMembers.put(m.groupInstanceId, m.memberId);
        }
        if (leaderId == null) {
            leaderId = m.memberId;
        }
    }

    /** Puts {@code replacement} in the place of {@code oldId}, keeping join order and leadership. */
    void replace(String oldId, GroupMember replacement) {
        Map<String, GroupMember> copy = new LinkedHashMap<>(members);
        members.clear();
        copy.forEach((id, m) -> members.put(id.equals(oldId) ? replacement.memberId : id,
                id.equals(oldId) ? replacement : m));
        if (replacement.isStatic()) {
            staticMembers.put(replacement.groupInstanceId, replacement.memberId);
        }
        if (isLeader(oldId)) {
            leaderId = replacement.memberId;
        }
    }

    void remove(String memberId) {
        GroupMember m = members.remove(memberId);
        if (m != null && m.isStatic() && memberId.equals(staticMembers.get(m.groupInstanceId))) {
            staticMembers.remove(m.groupInstanceId);
        }
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** A request naming {@code groupInstanceId} but not the member id that currently holds it. */
    boolean isStaticMemberFenced(String groupInstanceId, String memberId) {
        if (groupInstanceId == null) {
            return false;
        }
        String holder = staticMembers.get(groupInstanceId);
        return holder != null && !holder.equals(memberId);
    }

    boolean allMembersJoined() {
        return pendingMembers.isEmpty() && members.values().stream().allMatch(m -> m.awaitingJoin != null);
    }

    /** The group waits for the slowest member's rebalance timeout. */
    int rebalanceTimeoutMs() {
        return members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
    }

    // ---- protocols -----------------------------------------------------------------------

    /** Protocols every member supports. */
    Set<String> candidateProtocols() {
        Set<String> candidates = null;
        for (GroupMember m : members.values()) {
            Set<String> names = new LinkedHashSet<>();
            m.protocols.forEach(p -> names.add(p.name()));
            if (candidates == null) {
                candidates = names;
            } else {
                candidates.retainAll(names);
            }
        }
        return candidates == null ? Set.of() : candidates;
    }

    /** Whether a member of {@code type} offering {@code names} can join without breaking the group. */
    boolean supportsProtocols(String type, Collection<String> names) {
        if (type == null || type.isEmpty() || names.isEmpty()) {
            return false;
        }
        if (members.isEmpty()) {
            return true;
        }
        Set<String> candidates = candidateProtocols();
        return type.equals(protocolType) && names.stream().anyMatch(candidates::contains);
    }

    /**
     * Chooses the protocol all members support that most members prefer: each member votes for
     * the first of its protocols that every member supports. A tie goes to the leader's (or the
     * earliest member's) order of preference, so the choice does not depend on hash order.
     */
    String selectProtocol() {
        Set<String> candidates = candidateProtocols();
        if (candidates.isEmpty()) {
            throw new IllegalStateException("group " + groupId + " has no protocol all members support");
        }
        Map<String, Integer> votes = new HashMap<>();
        for (GroupMember m : members.values()) {
            m.protocols.stream().map(GroupMember.Protocol::name).filter(candidates::contains).findFirst()
                    .ifPresent(p -> votes.merge(p, 1, Integer::sum));
        }
        GroupMember first = leaderId != null && members.containsKey(leaderId)
                ? members.get(leaderId) : members.values().iterator().next();
        String best = null;
        int bestVotes = -1;
        for (GroupMember.Protocol p : first.protocols) {
            int v = votes.getOrDefault(p.name(), 0);
            if (candidates.contains(p.name()) && v > bestVotes) {
                best = p.name();
                bestVotes = v;
            }
        }
        return best;
    }

    /** The member list a leader receives in its JoinGroup response. */
    List<JoinGroupResponseMember> memberListForLeader() {
        List<JoinGroupResponseMember> list = new ArrayList<>(members.size());
        for (GroupMember m : members.values()) {
            list.add(new JoinGroupResponseMember().setMemberId(m.memberId)
                    .setGroupInstanceId(m.groupInstanceId).setMetadata(m.metadata(protocolName)));
        }
        return list;
    }

    /**
     * Topics the members subscribe to, read from their consumer-protocol subscriptions; empty
     * when the group is not a consumer group, and empty Optional when a subscription cannot be
     * read (the caller must then assume every topic is subscribed).
     */
    Optional<Set<String>> subscribedTopics() {
        if (!CONSUMER_PROTOCOL_TYPE.equals(protocolType) || protocolName == null) {
            return Optional.of(Set.of());
        }
        Set<String> topics = new HashSet<>();
        for (GroupMember m : members.values()) {
            try {
                ByteBuffer buf = ByteBuffer.wrap(m.metadata(protocolName));
                short version = buf.getShort();
                topics.addAll(new ConsumerProtocolSubscription(new ByteBufferAccessor(buf), version).topics());
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.of(topics);
    }

    // ---- persistence ---------------------------------------------------------------------

    /** This group's metadata as a record, with {@code assignments} (member id to bytes) if given. */
    GroupRecord.GroupMetadata toRecord(Map<String, byte[]> assignments) {
        List<GroupRecord.Member> list = new ArrayList<>(members.size());
        for (GroupMember m : members.values()) {
            byte[] assignment = assignments != null ? assignments.getOrDefault(m.memberId, GroupMember.EMPTY)
                    : m.assignment;
            list.add(new GroupRecord.Member(m.memberId, m.groupInstanceId, m.clientId, m.clientHost,
                    m.rebalanceTimeoutMs, m.sessionTimeoutMs, m.metadata(protocolName), assignment));
        }
        return new GroupRecord.GroupMetadata(groupId, protocolType, generationId, protocolName,
                members.isEmpty() ? null : leaderId, stateTimestampMs, list);
    }
}
