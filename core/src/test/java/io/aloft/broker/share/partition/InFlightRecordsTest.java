package io.aloft.broker.share.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.share.state.StateBatch;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-flight window's ring buffer: growth after the start moved, stored runs, loading. */
class InFlightRecordsTest {

    @Test
    void appendAdvanceGrow_keepsEveryOffsetsState() {
        InFlightRecords r = new InFlightRecords(100);
        for (int i = 0; i < 10; i++) {
            r.append(InFlightRecords.ACKNOWLEDGED, (short) 1, null);
        }
        r.set(105, InFlightRecords.AVAILABLE, (short) 3, null);
        assertTrue(r.advanceStart());
        assertEquals(105, r.start());
        for (int i = 0; i < 40; i++) {                                   // wraps, then grows twice
            r.append(InFlightRecords.AVAILABLE, (short) (i % 2), null);
        }
        assertEquals(150, r.end());
        assertEquals(3, r.count(105));
        assertEquals(InFlightRecords.ACKNOWLEDGED, r.state(106));
        for (int i = 0; i < 40; i++) {
            assertEquals(i % 2, r.count(110 + i), "offset " + (110 + i));
        }
        assertEquals(105, r.firstAvailable());
        assertFalse(r.contains(104));
        assertTrue(r.contains(149));
    }

    @Test
    void stored_runsOfOneStateAndCount_acquiredAsAvailable() {
        InFlightRecords r = new InFlightRecords(0);
        AcquisitionLock l = new AcquisitionLock("m", 0);
        r.append(InFlightRecords.ACQUIRED, (short) 1, l);
        r.append(InFlightRecords.AVAILABLE, (short) 1, null);
        r.append(InFlightRecords.ACKNOWLEDGED, (short) 1, null);
        r.append(InFlightRecords.ARCHIVED, (short) 2, null);
        r.append(InFlightRecords.ARCHIVED, (short) 2, null);
        assertEquals(List.of(new StateBatch(0, 1, StateBatch.AVAILABLE, (short) 1),
                new StateBatch(2, 2, StateBatch.ACKNOWLEDGED, (short) 1),
                new StateBatch(3, 4, StateBatch.ARCHIVED, (short) 2)), r.stored(0, 10));
        assertEquals(List.of(new StateBatch(2, 2, StateBatch.ACKNOWLEDGED, (short) 1)), r.stored(2, 2));
        assertEquals(3, r.deliveryCompleteCount());
    }

    @Test
    void load_fillsGapsAsNeverDelivered_andSkipsTheDoneHead() {
        InFlightRecords r = new InFlightRecords(10);
        r.load(List.of(new StateBatch(5, 11, StateBatch.ACKNOWLEDGED, (short) 1),
                new StateBatch(14, 15, StateBatch.AVAILABLE, (short) 2),
                new StateBatch(16, 16, StateBatch.ARCHIVED, (short) 4)));
        assertEquals(12, r.start(), "10-11 were acknowledged");
        assertEquals(17, r.end());
        assertEquals(InFlightRecords.AVAILABLE, r.state(12));
        assertEquals(0, r.count(12));
        assertEquals(2, r.count(15));
        assertEquals(List.of(), r.dropBelow(20));
        assertEquals(20, r.start());
        assertEquals(20, r.end());
    }
}
