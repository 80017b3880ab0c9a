package io.aloft.broker.group.consumer;

import java.util.Objects;

/**
 * A member's place in the reconciliation: its epoch, the epoch before it, its state, the partitions
 * it may use, and the partitions it must give up. The value of the member's current-assignment
 * record. Immutable.
 *
 * @param epoch the member epoch (0 before the first assignment; -2 while a static member is away)
 * @param previousEpoch the epoch before the last bump: a heartbeat carrying it (a lost response) is
 *     still accepted
 */
public record MemberAssignment(int epoch, int previousEpoch, MemberState state, Assignment assigned,
                               Assignment pendingRevocation) {

    /** A member that has just joined: epoch 0, nothing assigned. */
    public static final MemberAssignment JOINING =
            new MemberAssignment(0, -1, MemberState.STABLE, Assignment.EMPTY, Assignment.EMPTY);

    public MemberAssignment {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(assigned, "assigned");
        Objects.requireNonNull(pendingRevocation, "pendingRevocation");
    }
}
