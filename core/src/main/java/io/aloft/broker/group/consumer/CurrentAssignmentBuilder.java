package io.aloft.broker.group.consumer;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Reconciliation (KIP-848): the next step of one member towards its target assignment, revoking
 * before assigning.
 *
 * <ul>
 *   <li>Partitions the member has that the target does not must be revoked first: the member keeps
 *       its epoch and the partitions it may keep, and waits in {@link MemberState#UNREVOKED_PARTITIONS}
 *       until a heartbeat shows it no longer owns the revoked ones.</li>
 *   <li>Then it gets the target epoch and every target partition no other member still has; those
 *       another member still has come once released ({@link MemberState#UNRELEASED_PARTITIONS}).</li>
 * </ul>
 * Stateless: a pure function of the member, its target and who owns what.
 */
public final class CurrentAssignmentBuilder {

    /** Who has a partition now (assigned or still revoking): a member id, or null if it is free. */
    @FunctionalInterface
    public interface Owners {
        String owner(Uuid topicId, int partition);
    }

    private CurrentAssignmentBuilder() {
    }

    /**
     * The member's next assignment state.
     *
     * @param memberId the member
     * @param current its state now
     * @param targetEpoch the target assignment's epoch
     * @param target its part of the target assignment
     * @param owned the partitions the member says it owns, or null if this heartbeat did not say
     * @param owners who has each partition now
     */
    public static MemberAssignment next(String memberId, MemberAssignment current, int targetEpoch, Assignment target,
                                        Assignment owned, Owners owners) {
        switch (current.state()) {
            case UNREVOKED_PARTITIONS:
                if (owned == null || owned.overlaps(current.pendingRevocation())) {
                    return current; // still revoking (or it did not say)
                }
                return compute(memberId, current, targetEpoch, target, owned, owners);
            case UNRELEASED_PARTITIONS:
            case STABLE:
            default:
                if (current.state() == MemberState.STABLE && current.epoch() == targetEpoch) {
                    return current;
                }
                return compute(memberId, current, targetEpoch, target, owned, owners);
        }
    }

    private static MemberAssignment compute(String memberId, MemberAssignment current, int targetEpoch,
                                            Assignment target, Assignment owned, Owners owners) {
        Assignment assigned = current.assigned();
        Assignment keep = assigned.intersect(target);
        Assignment revoke = assigned.minus(target);
        if (!revoke.isEmpty() && (owned == null || owned.overlaps(revoke))) {
            return new MemberAssignment(current.epoch(), current.previousEpoch(), MemberState.UNREVOKED_PARTITIONS,
                    keep, revoke);
        }
        Map<Uuid, Set<Integer>> next = new HashMap<>();
        keep.partitions().forEach((topic, parts) -> next.put(topic, new TreeSet<>(parts)));
        boolean unreleased = false;
        for (Map.Entry<Uuid, ? extends Set<Integer>> e : target.minus(keep).partitions().entrySet()) {
            for (int p : e.getValue()) {
                String owner = owners.owner(e.getKey(), p);
                if (owner == null || owner.equals(memberId)) {
                    next.computeIfAbsent(e.getKey(), t -> new TreeSet<>()).add(p);
                } else {
                    unreleased = true;
                }
            }
        }
        int previous = current.epoch() == targetEpoch ? current.previousEpoch() : current.epoch();
        return new MemberAssignment(targetEpoch, previous,
                unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE, Assignment.of(next),
                Assignment.EMPTY);
    }
}
