package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        ByteBuffer out = ByteBuffer.allocate(txns.checkpointSize());
        txns.writeCheckpoint(out);
        assertEquals(0, out.remaining());
        TransactionIndex read = new TransactionIndex();
        read.readCheckpoint(out.flip());
        assertEquals(List.of(new AbortedTxn(1, 0, 4)), read.aborted());
        assertEquals(9, read.lastStableOffset(9, 0), "open transactions come from the producers, not from here");
    }
}
