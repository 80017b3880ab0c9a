package io.aloft.broker.group.consumer;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * The state of one consumer group (KIP-848), exactly what its records say: changed only by
 * {@link #replay}, which runs when a record is written and when the partition loads, so a reload
 * rebuilds the same group. Operations read it and compute records; they never change it.
 *
 * <p>Confined to the thread of the shard that holds it (and the loading thread before that).
 */
public final class ConsumerGroup {

    /** The group's state as ListGroups and the describe APIs name it. */
    public enum State {
        EMPTY("Empty"), ASSIGNING("Assigning"), RECONCILING("Reconciling"), STABLE("Stable");

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
    /** By member id, sorted: assignors and describe see members in the same order every time. */
    private final Map<String, ConsumerGroupMember> members = new TreeMap<>();
    private int targetEpoch;
    private final Map<String, Assignment> target = new HashMap<>();
    /** group.instance.id to the member id holding it. */
    private final Map<String, String> staticMembers = new HashMap<>();
    /** Topic id to partition to the member that has it (assigned or still revoking). */
    private final Map<Uuid, Map<Integer, String>> owners = new HashMap<>();

    ConsumerGroup(String groupId) {
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

    /** Subscribed topics by name, as of the last group epoch bump. */
    public Map<String, TopicMetadata> subscribedTopics() {
        return Collections.unmodifiableMap(subscribedTopics);
    }

    public Map<String, ConsumerGroupMember> members() {
        return Collections.unmodifiableMap(members);
    }

    public ConsumerGroupMember member(String memberId) {
        return members.get(memberId);
    }

    /** The member holding {@code instanceId}, or null. */
    public ConsumerGroupMember staticMember(String instanceId) {
        String id = instanceId == null ? null : staticMembers.get(instanceId);
        return id == null ? null : members.get(id);
    }

    /** The member's part of the target assignment (empty if it has none yet). */
    public Assignment target(String memberId) {
        return target.getOrDefault(memberId, Assignment.EMPTY);
    }

    public Map<String, Assignment> targetAssignment() {
        return Collections.unmodifiableMap(target);
    }

    /** The member that has the partition (assigned or still revoking it), or null if it is free. */
    public String owner(Uuid topicId, int partition) {
        Map<Integer, String> byPartition = owners.get(topicId);
        return byPartition == null ? null : byPartition.get(partition);
    }

    public boolean isEmpty() {
        return members.isEmpty();
    }

    /** Kafka's rule: Empty without members, Assigning until the target catches up, Reconciling until all members have it. */
    public State state() {
        if (members.isEmpty()) {
            return State.EMPTY;
        }
        if (groupEpoch > targetEpoch) {
            return State.ASSIGNING;
        }
        for (ConsumerGroupMember m : members.values()) {
            if (m.epoch() != targetEpoch || m.current().state() != MemberState.STABLE) {
                return State.RECONCILING;
            }
        }
        return State.STABLE;
    }

    // ---- replay --------------------------------------------------------------------------

    /** Applies one record of this group. The group's own tombstone is handled by the caller. */
    void replay(ConsumerGroupRecord record) {
        if (record instanceof ConsumerGroupRecord.GroupEpoch r) {
            groupEpoch = r.epoch() == null ? 0 : r.epoch();
        } else if (record instanceof ConsumerGroupRecord.SubscribedTopics r) {
            subscribedTopics = r.topics() == null ? Map.of() : r.topics();
        } else if (record instanceof ConsumerGroupRecord.MemberMetadata r) {
            replayMetadata(r);
        } else if (record instanceof ConsumerGroupRecord.TargetEpoch r) {
            targetEpoch = r.epoch() == null ? 0 : r.epoch();
        } else if (record instanceof ConsumerGroupRecord.TargetMember r) {
            if (r.value() == null) {
                target.remove(r.memberId());
            } else {
                target.put(r.memberId(), r.value());
            }
        } else if (record instanceof ConsumerGroupRecord.CurrentMember r) {
            replayCurrent(r);
        }
    }

    private void replayMetadata(ConsumerGroupRecord.MemberMetadata r) {
        ConsumerGroupMember old = members.get(r.memberId());
        if (old != null && old.instanceId() != null && r.memberId().equals(staticMembers.get(old.instanceId()))) {
            staticMembers.remove(old.instanceId());
        }
        if (r.value() == null) {
            if (old != null) {
                setOwned(old, Assignment.EMPTY, Assignment.EMPTY);
                members.remove(r.memberId());
            }
            return;
        }
        ConsumerGroupMember m = old == null
                ? new ConsumerGroupMember(r.memberId(), r.value(), MemberAssignment.JOINING) : old.with(r.value());
        members.put(m.memberId(), m);
        if (m.instanceId() != null) {
            staticMembers.put(m.instanceId(), m.memberId());
        }
    }

    private void replayCurrent(ConsumerGroupRecord.CurrentMember r) {
        ConsumerGroupMember old = members.get(r.memberId());
        MemberAssignment value = r.value() == null ? MemberAssignment.JOINING : r.value();
        if (old == null) {
            if (r.value() == null) {
                return;
            }
            // Written before the member's metadata (not by this broker), or the metadata comes next.
            old = new ConsumerGroupMember(r.memberId(), null, MemberAssignment.JOINING);
        }
        setOwned(old, value.assigned(), value.pendingRevocation());
        members.put(r.memberId(), old.with(value));
    }

    /** Moves the member's partitions in {@link #owners} from what it had to {@code assigned} and {@code revoking}. */
    private void setOwned(ConsumerGroupMember m, Assignment assigned, Assignment revoking) {
        release(m.memberId(), m.current().assigned());
        release(m.memberId(), m.current().pendingRevocation());
        claim(m.memberId(), assigned);
        claim(m.memberId(), revoking);
    }

    private void release(String memberId, Assignment a) {
        a.partitions().forEach((topic, parts) -> {
            Map<Integer, String> byPartition = owners.get(topic);
            if (byPartition != null) {
                parts.forEach(p -> byPartition.remove(p, memberId));
                if (byPartition.isEmpty()) {
                    owners.remove(topic);
                }
            }
        });
    }

    private void claim(String memberId, Assignment a) {
        a.partitions().forEach((topic, parts) -> {
            Map<Integer, String> byPartition = owners.computeIfAbsent(topic, t -> new HashMap<>());
            parts.forEach(p -> byPartition.put(p, memberId));
        });
    }
}
