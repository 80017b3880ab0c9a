package io.aloft.broker.group.share;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state of one share group (KIP-932), exactly what its records say: changed only by
 * {@link #replay}, so a reload rebuilds the same group. Operations read it and compute records.
 *
 * <p>Confined to the thread of the shard that holds it (and the loading thread before that).
 */
public final class ShareGroup {

    /** Kafka's share group states: Empty without members, Stable with (there is no rebalance to wait for). */
    public enum State {
        EMPTY("Empty"), STABLE("Stable");

        private final String protocolName;

        State(String protocolName) {
            this.protocolName = protocolName;
        }

        public String protocolName() {
            return protocolName;
        }
    }

    private final String groupId;
    private int groupEpoch;
    private Map<String, TopicMetadata> subscribedTopics = Map.of();
    /** By member id, sorted: the assignor and describe see members in the same order every time. */
    private final Map<String, ShareGroupMember> members = new TreeMap<>();
    private int targetEpoch;
    private final Map<String, Assignment> target = new HashMap<>();
    private Assignment initialized = Assignment.EMPTY;

    ShareGroup(String groupId) {
        this.groupId = groupId;
    }

    public String groupId() {
        return groupId;
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int targetEpoch() {
        return targetEpoch;
    }

    public Map<String, TopicMetadata> subscribedTopics() {
        return Collections.unmodifiableMap(subscribedTopics);
    }

    public Map<String, ShareGroupMember> members() {
        return Collections.unmodifiableMap(members);
    }

    public ShareGroupMember member(String memberId) {
        return members.get(memberId);
    }

    public Assignment target(String memberId) {
        return target.getOrDefault(memberId, Assignment.EMPTY);
    }

    Map<String, Assignment> targetAssignment() {
        return Collections.unmodifiableMap(target);
    }

    /** The share partitions whose state was initialized. */
    public Assignment initialized() {
        return initialized;
    }

    public boolean isEmpty() {
        return members.isEmpty();
    }

    public State state() {
        return members.isEmpty() ? State.EMPTY : State.STABLE;
    }

    // ---- replay --------------------------------------------------------------------------

    /** Applies one record of this group. The group's own tombstone is handled by the caller. */
    void replay(ShareGroupRecord record) {
        if (record instanceof ShareGroupRecord.GroupEpoch r) {
            groupEpoch = r.epoch() == null ? 0 : r.epoch();
        } else if (record instanceof ShareGroupRecord.SubscribedTopics r) {
            subscribedTopics = r.topics() == null ? Map.of() : r.topics();
        } else if (record instanceof ShareGroupRecord.MemberMetadata r) {
            ShareGroupMember old = members.get(r.memberId());
            if (r.value() == null) {
                members.remove(r.memberId());
            } else {
                members.put(r.memberId(), old == null
                        ? new ShareGroupMember(r.memberId(), r.value(), ShareGroupMember.JOINING) : old.with(r.value()));
            }
        } else if (record instanceof ShareGroupRecord.TargetEpoch r) {
            targetEpoch = r.epoch() == null ? 0 : r.epoch();
        } else if (record instanceof ShareGroupRecord.TargetMember r) {
            if (r.value() == null) {
                target.remove(r.memberId());
            } else {
                target.put(r.memberId(), r.value());
            }
        } else if (record instanceof ShareGroupRecord.CurrentMember r) {
            ShareGroupMember old = members.get(r.memberId());
            if (r.value() == null) {
                if (old != null) {
                    members.put(r.memberId(), old.with(ShareGroupMember.JOINING));
                }
                return;
            }
            // The metadata record of a new member may come next (records of one heartbeat in any order).
            members.put(r.memberId(), old == null
                    ? new ShareGroupMember(r.memberId(), null, r.value()) : old.with(r.value()));
        } else if (record instanceof ShareGroupRecord.InitializedPartitions r) {
            initialized = r.partitions() == null ? Assignment.EMPTY : r.partitions();
        }
    }
}
