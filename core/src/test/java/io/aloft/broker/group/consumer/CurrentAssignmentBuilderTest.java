package io.aloft.broker.group.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class CurrentAssignmentBuilderTest {

    static final Uuid T = new Uuid(0, 7);

    static Assignment parts(Integer... p) {
        return Assignment.of(Map.of(T, Set.of(p)));
    }

    static final CurrentAssignmentBuilder.Owners NOBODY = (t, p) -> null;

    @Test
    void next_newMember_getsTargetAndEpoch() {
        MemberAssignment next = CurrentAssignmentBuilder.next("m", MemberAssignment.JOINING, 3, parts(0, 1), null,
                NOBODY);
        assertEquals(new MemberAssignment(3, 0, MemberState.STABLE, parts(0, 1), Assignment.EMPTY), next);
    }

    @Test
    void next_partitionsToGiveUp_revokedFirstKeepingTheEpoch() {
        MemberAssignment current = new MemberAssignment(2, 1, MemberState.STABLE, parts(0, 1, 2), Assignment.EMPTY);
        MemberAssignment next = CurrentAssignmentBuilder.next("m", current, 3, parts(0, 3), parts(0, 1, 2), NOBODY);
        assertEquals(new MemberAssignment(2, 1, MemberState.UNREVOKED_PARTITIONS, parts(0), parts(1, 2)), next);
    }

    @Test
    void next_stillOwnsRevokedPartitions_waits() {
        MemberAssignment revoking = new MemberAssignment(2, 1, MemberState.UNREVOKED_PARTITIONS, parts(0), parts(1));
        assertSame(revoking, CurrentAssignmentBuilder.next("m", revoking, 3, parts(0, 3), parts(0, 1), NOBODY));
        assertSame(revoking, CurrentAssignmentBuilder.next("m", revoking, 3, parts(0, 3), null, NOBODY),
                "a heartbeat that does not say what it owns proves nothing");
    }

    @Test
    void next_revokedDone_getsNewEpochAndFreePartitions() {
        MemberAssignment revoking = new MemberAssignment(2, 1, MemberState.UNREVOKED_PARTITIONS, parts(0), parts(1));
        MemberAssignment next = CurrentAssignmentBuilder.next("m", revoking, 3, parts(0, 3), parts(0), NOBODY);
        assertEquals(new MemberAssignment(3, 2, MemberState.STABLE, parts(0, 3), Assignment.EMPTY), next);
    }

    @Test
    void next_targetPartitionStillOwnedByAnother_notHandedOutUntilReleased() {
        CurrentAssignmentBuilder.Owners otherHas3 = (t, p) -> p == 3 ? "other" : null;
        MemberAssignment current = new MemberAssignment(2, 1, MemberState.STABLE, parts(0), Assignment.EMPTY);
        MemberAssignment waiting = CurrentAssignmentBuilder.next("m", current, 3, parts(0, 3), parts(0), otherHas3);
        assertEquals(new MemberAssignment(3, 2, MemberState.UNRELEASED_PARTITIONS, parts(0), Assignment.EMPTY),
                waiting);
        MemberAssignment released = CurrentAssignmentBuilder.next("m", waiting, 3, parts(0, 3), parts(0), NOBODY);
        assertEquals(new MemberAssignment(3, 2, MemberState.STABLE, parts(0, 3), Assignment.EMPTY), released);
    }

    @Test
    void next_stableAtTargetEpoch_unchanged() {
        MemberAssignment stable = new MemberAssignment(3, 2, MemberState.STABLE, parts(0), Assignment.EMPTY);
        assertSame(stable, CurrentAssignmentBuilder.next("m", stable, 3, parts(0), parts(0), NOBODY));
    }

    @Test
    void next_memberAlreadyGaveUpRevokedPartitions_skipsTheWait() {
        MemberAssignment current = new MemberAssignment(2, 1, MemberState.STABLE, parts(0, 1), Assignment.EMPTY);
        MemberAssignment next = CurrentAssignmentBuilder.next("m", current, 3, parts(0), parts(0), NOBODY);
        assertEquals(new MemberAssignment(3, 2, MemberState.STABLE, parts(0), Assignment.EMPTY), next);
    }
}
