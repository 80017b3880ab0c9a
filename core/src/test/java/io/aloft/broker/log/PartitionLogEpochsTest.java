package io.aloft.broker.log;

import static io.aloft.broker.log.LogFixture.batch;
import static io.aloft.broker.log.LogFixture.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Leader epochs of a partition log: each batch is stamped with the epoch the log was opened for,
 * and where each epoch ends survives a new owner, whether the old one closed (checkpoint), did not
 * (replayed from the stamped batches), or the store restarted. The fixture opens with leader epoch
 * 1, 2, 3... on each open.
 */
class PartitionLogEpochsTest extends WithLogFixture {
    private enum Handover { CLOSE, NO_CLOSE, STORE_RESTART }

    private PartitionLog reopen(PartitionLog old, Handover how) throws Exception {
        switch (how) {
            case CLOSE -> get(old.close());
            case NO_CLOSE -> get(fx.store.flush());
            case STORE_RESTART -> {
                get(old.close());
                fx.stopStore();
                fx.startStore();
            }
            default -> throw new IllegalArgumentException();
        }
        return fx.open(Map.of());
    }

    /** Epoch 1 writes offsets 0-2, epoch 2 writes 3-4, epoch 3 writes 5. */
    private void epochsSurvive(Handover how) throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(3)));
        log = reopen(log, how);
        get(log.append(batch(2)));
        log = reopen(log, how);
        get(log.append(batch(1)));

        assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(1));
        assertEquals(new EpochEndOffset(2, 5), log.endOffsetForEpoch(2));
        assertEquals(new EpochEndOffset(3, 6), log.endOffsetForEpoch(3), "the current epoch ends at the log end");
        assertEquals(new EpochEndOffset(0, 0), log.endOffsetForEpoch(0), "below every epoch: the oldest start");
        assertEquals(EpochEndOffset.UNDEFINED, log.endOffsetForEpoch(4));
        List<Integer> stamped = new ArrayList<>();
        for (RecordBatch b : get(log.read(0, 1 << 20, true)).records().batches()) {
            stamped.add(b.partitionLeaderEpoch());
        }
        assertEquals(List.of(1, 2, 3), stamped);
    }

    @Test
    void endOffsetForEpoch_survivesCloseAndReopen() throws Exception {
        epochsSurvive(Handover.CLOSE);
    }

    @Test
    void endOffsetForEpoch_survivesReopenWithoutClose_fromTheStampedBatches() throws Exception {
        epochsSurvive(Handover.NO_CLOSE);
    }

    @Test
    void endOffsetForEpoch_survivesStoreRestart() throws Exception {
        epochsSurvive(Handover.STORE_RESTART);
    }

    @Test
    void endOffsetForEpoch_epochThatWroteNothing_answersWithTheEpochBefore() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(3)));
        log = reopen(log, Handover.CLOSE); // epoch 2: nothing written
        log = reopen(log, Handover.CLOSE); // epoch 3
        get(log.append(batch(2)));
        assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(2));
        assertEquals(new EpochEndOffset(3, 5), log.endOffsetForEpoch(3));
    }

    @Test
    void endOffsetForEpoch_afterDeleteRecords_startsTheOldestEpochAtTheLogStart() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(3)));
        log = reopen(log, Handover.CLOSE);
        get(log.append(batch(3)));
        get(log.deleteRecordsBefore(4)); // epoch 1's records (0-2) are gone, and offset 3 of epoch 2
        assertEquals(new EpochEndOffset(1, 4), log.endOffsetForEpoch(1));
        assertEquals(new EpochEndOffset(2, 6), log.endOffsetForEpoch(2));
        log = reopen(log, Handover.CLOSE);
        assertEquals(new EpochEndOffset(1, 4), log.endOffsetForEpoch(1));
        assertEquals(new EpochEndOffset(2, 6), log.endOffsetForEpoch(2));
    }
}
