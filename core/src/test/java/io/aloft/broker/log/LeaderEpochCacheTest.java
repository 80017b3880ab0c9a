package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Which epoch wrote which offsets, and where each epoch ends, as OffsetForLeaderEpoch answers. */
class LeaderEpochCacheTest {

    /** Epoch 1 wrote [0, 10), epoch 3 wrote [10, 25), epoch 4 writes from 25; the log ends at 30. */
    private static LeaderEpochCache threeEpochs() {
        LeaderEpochCache c = new LeaderEpochCache();
        c.assign(1, 0);
        c.assign(3, 10);
        c.assign(4, 25);
        return c;
    }

    @Test
    void endOffsetFor_currentEpoch_isTheLogEnd() {
        assertEquals(new EpochEndOffset(4, 30), threeEpochs().endOffsetFor(4, 30));
    }

    @Test
    void endOffsetFor_olderHeldEpoch_isWhereTheNextStarts() {
        LeaderEpochCache c = threeEpochs();
        assertEquals(new EpochEndOffset(1, 10), c.endOffsetFor(1, 30));
        assertEquals(new EpochEndOffset(3, 25), c.endOffsetFor(3, 30));
    }

    @Test
    void endOffsetFor_epochNotHeld_isTheEpochBelowAndItsEnd() {
        // Epoch 2 led without writing: its answer is epoch 1's end.
        assertEquals(new EpochEndOffset(1, 10), threeEpochs().endOffsetFor(2, 30));
    }

    @Test
    void endOffsetFor_epochBelowEveryHeldOne_isTheRequestedEpochAndTheOldestStart() {
        LeaderEpochCache c = threeEpochs();
        c.truncateFromStart(12); // epoch 1's records are gone; epoch 3 now starts at 12
        assertEquals(new EpochEndOffset(1, 12), c.endOffsetFor(1, 30));
        assertEquals(new EpochEndOffset(0, 12), c.endOffsetFor(0, 30));
    }

    @Test
    void endOffsetFor_epochAboveEveryHeldOne_orUndefined_isUndefined() {
        assertEquals(EpochEndOffset.UNDEFINED, threeEpochs().endOffsetFor(9, 30));
        assertEquals(EpochEndOffset.UNDEFINED, threeEpochs().endOffsetFor(-1, 30));
        assertEquals(EpochEndOffset.UNDEFINED, new LeaderEpochCache().endOffsetFor(0, 30));
    }

    @Test
    void assign_olderOrSameEpoch_changesNothing() {
        LeaderEpochCache c = threeEpochs();
        c.assign(4, 28); // a replayed batch of the current epoch
        c.assign(2, 27); // an epoch older than the newest
        assertEquals(3, c.size());
        assertEquals(25, c.startOffset(2));
    }

    @Test
    void assign_newEpochAtTheSameOffset_replacesAnEpochThatWroteNothing() {
        LeaderEpochCache c = threeEpochs();
        c.assign(5, 25);
        assertEquals(3, c.size());
        assertEquals(5, c.latestEpoch());
        assertEquals(new EpochEndOffset(3, 25), c.endOffsetFor(4, 30));
    }

    @Test
    void assign_startBeforeTheNewest_isRefused() {
        assertThrows(IllegalStateException.class, () -> threeEpochs().assign(6, 20));
    }

    @Test
    void truncateFromStart_dropsEpochsEndingAtOrBelowIt_andStartsTheOneHoldingIt() {
        LeaderEpochCache c = threeEpochs();
        c.truncateFromStart(10);
        assertEquals(2, c.size());
        assertEquals(3, c.epoch(0));
        assertEquals(10, c.startOffset(0));
        c.truncateFromStart(27);
        assertEquals(1, c.size());
        assertEquals(4, c.epoch(0));
        assertEquals(27, c.startOffset(0));
    }

    @Test
    void checkpoint_roundTrips() {
        LeaderEpochCache c = threeEpochs();
        ByteBuffer b = ByteBuffer.allocate(c.checkpointSize());
        c.writeCheckpoint(b);
        b.flip();
        LeaderEpochCache read = new LeaderEpochCache();
        read.assign(99, 1000); // replaced, not merged
        read.readCheckpoint(b);
        assertEquals(3, read.size());
        assertEquals(new EpochEndOffset(3, 25), read.endOffsetFor(3, 30));
        assertEquals(0, b.remaining());
    }
}
