package io.aloft.broker.group;

import io.aloft.broker.group.consumer.ConsumerGroups;
import io.aloft.broker.group.share.ShareGroups;
import java.util.List;
import java.util.Map;

/**
 * Applies replayed {@link GroupRecord}s to the groups of one partition. Each record replaces what an
 * earlier record with the same key said, so a compacted log replays to the same state. Offsets go
 * to the {@link GroupOffsets} of their group id, classic records to the classic groups, consumer
 * group records to {@link ConsumerGroups}, share group records to {@link ShareGroups}. An offset of an id that has no group makes a simple
 * (classic, unmanaged) group, as a commit without a group does. Offsets of a producer's transaction
 * stay pending until its marker, which commits or drops them ({@link TxnOffsetManager}). Confined to the shard's thread
 * (the loading thread while loading).
 */
final class GroupReplay {

    private final Map<String, ClassicGroup> groups;
    private final Map<String, GroupOffsets> offsets;
    private final ConsumerGroups consumerGroups;
    private final ShareGroups shareGroups;
    private final TxnOffsetManager txnOffsets;
    private final int partition;

    GroupReplay(Map<String, ClassicGroup> groups, Map<String, GroupOffsets> offsets, ConsumerGroups consumerGroups,
                ShareGroups shareGroups, TxnOffsetManager txnOffsets, int partition) {
        this.shareGroups = shareGroups;
        this.groups = groups;
        this.offsets = offsets;
        this.consumerGroups = consumerGroups;
        this.txnOffsets = txnOffsets;
        this.partition = partition;
    }

    void apply(GroupRecord record, long nowMs) {
        if (record instanceof GroupRecord.OffsetCommit c) {
            OffsetManager.replay(offsetsOf(c.groupId()), c);
            simpleGroupIfNone(c.groupId(), nowMs);
        } else if (record instanceof GroupRecord.TxnOffsetCommit t) {
            txnOffsets.addPending(t.groupId(), offsetsOf(t.groupId()), t);
            simpleGroupIfNone(t.groupId(), nowMs);
        } else if (record instanceof GroupRecord.TxnMarker m) {
            txnOffsets.complete(m.marker());
        } else if (record instanceof GroupRecord.OffsetTombstone t) {
            GroupOffsets o = offsets.get(t.groupId());
            if (o != null) {
                OffsetManager.replay(o, t);
                if (o.isEmpty() && !groups.containsKey(t.groupId())) {
                    offsets.remove(t.groupId()); // nothing refers to it; a later commit makes a new one
                }
            }
        } else if (record instanceof GroupRecord.GroupMetadata m) {
            restore(groups.computeIfAbsent(m.groupId(),
                    id -> new ClassicGroup(id, partition, nowMs, offsetsOf(id))), m);
        } else if (record instanceof GroupRecord.GroupTombstone t) {
            groups.remove(t.groupId());
        } else if (record instanceof GroupRecord.ConsumerGroupChange c) {
            consumerGroups.replay(c.change());
        } else if (record instanceof GroupRecord.ShareGroupChange c) {
            shareGroups.replay(c.change());
        }
    }

    private void simpleGroupIfNone(String groupId, long nowMs) {
        if (!groups.containsKey(groupId) && consumerGroups.group(groupId) == null && shareGroups.group(groupId) == null) {
            groups.put(groupId, new ClassicGroup(groupId, partition, nowMs, offsetsOf(groupId)));
        }
    }

    /** The offsets of {@code groupId}, made on first use. */
    GroupOffsets offsetsOf(String groupId) {
        return offsets.computeIfAbsent(groupId, id -> new GroupOffsets());
    }

    /** Members come back as of their last persisted generation: Stable if any, else Empty. */
    private static void restore(ClassicGroup g, GroupRecord.GroupMetadata m) {
        g.members.clear();
        g.staticMembers.clear();
        g.protocolType = m.protocolType();
        g.generationId = m.generationId();
        g.protocolName = m.protocolName();
        g.leaderId = m.leaderId();
        for (GroupRecord.Member r : m.members()) {
            GroupMember member = new GroupMember(r.memberId(), r.groupInstanceId(), m.protocolType(), r.clientId(),
                    r.clientHost(), r.rebalanceTimeoutMs(), r.sessionTimeoutMs(),
                    List.of(new GroupMember.Protocol(m.protocolName(),
                            r.subscription() == null ? GroupMember.EMPTY : r.subscription())));
            member.assignment = r.assignment() == null ? GroupMember.EMPTY : r.assignment();
            g.members.put(member.memberId, member);
            if (member.isStatic()) {
                g.staticMembers.put(member.groupInstanceId, member.memberId);
            }
        }
        if (g.members.isEmpty()) {
            g.leaderId = null;
            g.protocolName = null;
        }
        g.state = g.members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
        g.stateTimestampMs = m.stateTimestampMs();
    }
}
