package io.aloft.broker.group;

import java.util.List;
import java.util.Map;

/**
 * Applies replayed {@link GroupRecord}s to the groups of one partition being loaded. Each record
 * replaces what an earlier record with the same key said, so a compacted log replays to the same
 * state. Confined to the loading thread: the groups are not yet visible to requests.
 */
final class GroupReplay {

    private GroupReplay() {
    }

    static void apply(Map<String, ClassicGroup> groups, int partition, GroupRecord record, long nowMs) {
        if (record instanceof GroupRecord.OffsetCommit c) {
            OffsetManager.replay(groups.computeIfAbsent(c.groupId(), id -> new ClassicGroup(id, partition, nowMs)), c);
        } else if (record instanceof GroupRecord.OffsetTombstone t) {
            ClassicGroup g = groups.get(t.groupId());
            if (g != null) {
                OffsetManager.replay(g, t);
            }
        } else if (record instanceof GroupRecord.GroupMetadata m) {
            restore(groups.computeIfAbsent(m.groupId(), id -> new ClassicGroup(id, partition, nowMs)), m);
        } else if (record instanceof GroupRecord.GroupTombstone t) {
            groups.remove(t.groupId());
        }
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
