package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The last stable offset and the aborted transactions, without a log around them. */
class TransactionIndexTest {
    @Test
    void lastStableOffset_isHeldByAMarkerNotYetDurable() {
        TransactionIndex txns = new TransactionIndex();
        assertEquals(10, txns.lastStableOffset(10, 0), "no transaction: the high watermark");
        txns.begin(10);
        assertEquals(10, txns.lastStableOffset(12, 0));
        txns.end(7, 10, 12, false); // marker at 12, not durable until the high watermark passes it
        assertEquals(10, txns.lastStableOffset(12, 0));
        assertEquals(13, txns.lastStableOffset(13, 0));
    }

    @Test
    void lastStableOffset_followsTheOldestUndecided_neverBelowTheLogStart() {
        TransactionIndex txns = new TransactionIndex();
        txns.begin(3);
        txns.begin(5);
        txns.end(2, 5, 6, true);
        assertEquals(3, txns.lastStableOffset(8, 0), "a later transaction decided first holds nothing");
        assertEquals(4, txns.lastStableOffset(8, 4), "the log start moved past the open transaction's start");
        txns.end(1, 3, 8, false);
        assertEquals(3, txns.lastStableOffset(8, 0), "the marker at 8 is not durable below 9");
        assertEquals(9, txns.lastStableOffset(9, 0));
    }

    @Test
    void abortedIn_listsThoseOverlappingTheRange_truncateHeadDropsThoseEndedBelow() {
        TransactionIndex txns = new TransactionIndex();
        txns.begin(0);
        txns.begin(2);
        txns.end(1, 0, 4, true);
        txns.end(2, 2, 5, true);
        txns.begin(6);
        txns.end(3, 6, 9, true);
        AbortedTxn a = new AbortedTxn(1, 0, 4);
        AbortedTxn b = new AbortedTxn(2, 2, 5);
        AbortedTxn c = new AbortedTxn(3, 6, 9);
        assertEquals(List.of(a, b, c), txns.abortedIn(0, 10));
        assertEquals(List.of(a, b), txns.abortedIn(0, 6), "c starts at the range's end");
        assertEquals(List.of(a), txns.abortedIn(0, 2));
        assertEquals(List.of(b, c), txns.abortedIn(5, 10), "a's marker is below the fetch offset");
        assertEquals(List.of(c), txns.abortedIn(6, 7));
        assertEquals(List.of(a, b), txns.abortedBelow(6));

        txns.truncateHead(5);
        assertEquals(List.of(b, c), txns.aborted());
    }

    @Test
    void checkpoint_roundTripsTheAbortedTransactions() {
        TransactionIndex txns = new TransactionIndex();
        txns.begin(0);
        txns.end(1, 0, 4, true);
        txns.begin(5);
        ByteBuffer out = ByteBuffer.allocate(txns.checkpointSize(true));
        txns.writeCheckpoint(out, true);
        assertEquals(0, out.remaining());
        TransactionIndex read = new TransactionIndex();
        read.readCheckpoint(out.flip(), true);
        assertEquals(List.of(new AbortedTxn(1, 0, 4)), read.aborted());
        assertEquals(9, read.lastStableOffset(9, 0), "open transactions come from the producers, not from here");
    }

    /** Partial checkpoints hold only what was added since the previous one; applied in order they rebuild the list. */
    @Test
    void partialCheckpoints_holdOnlyNewAbortedTransactions_andRebuildTheList() {
        TransactionIndex txns = new TransactionIndex();
        for (int i = 0; i < 1000; i++) {
            txns.end(i, 2L * i, 2L * i + 1, true);
        }
        ByteBuffer full = write(txns, true);
        txns.end(5000, 3000, 3001, true);
        txns.end(5001, 3002, 3003, true);
        ByteBuffer partial = write(txns, false);
        ByteBuffer empty = write(txns, false);

        assertEquals(4 + 1000 * TransactionIndex.ABORTED_BYTES, full.remaining());
        assertEquals(4 + 2 * TransactionIndex.ABORTED_BYTES, partial.remaining());
        assertEquals(4, empty.remaining());
        TransactionIndex read = new TransactionIndex();
        read.readCheckpoint(full, true);
        read.readCheckpoint(partial, false);
        read.readCheckpoint(empty, false);
        assertEquals(txns.aborted(), read.aborted());
    }

    @Test
    void forget_makesTheNextCheckpointFull_headTrimDoesNot() {
        TransactionIndex txns = new TransactionIndex();
        txns.end(1, 0, 1, true);
        txns.end(2, 2, 3, true);
        txns.end(3, 4, 5, true);
        write(txns, true);

        txns.truncateHead(2);
        assertFalse(txns.needsFullCheckpoint(), "the log start says it");
        txns.forget(List.of(new AbortedTxn(3, 4, 5)));
        assertTrue(txns.needsFullCheckpoint());
        write(txns, true);
        assertFalse(txns.needsFullCheckpoint());
        assertEquals(List.of(new AbortedTxn(2, 2, 3)), txns.aborted());
    }

    private static ByteBuffer write(TransactionIndex txns, boolean full) {
        ByteBuffer out = ByteBuffer.allocate(txns.checkpointSize(full));
        txns.writeCheckpoint(out, full);
        return out.flip();
    }
}
