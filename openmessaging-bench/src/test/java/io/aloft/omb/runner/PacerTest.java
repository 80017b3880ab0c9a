package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** With an injected clock that is already past each due time, the pacer never parks. */
class PacerTest {
    private static final long MS = 1_000_000L;

    @Test
    void awaitNext_behindSchedule_returnsAbsoluteDueTimesWithoutWaiting() {
        AtomicLong clock = new AtomicLong(5 * MS);
        Pacer pacer = new Pacer(1000, clock::get, () -> false);
        assertTrue(pacer.limited());
        assertEquals(5 * MS, pacer.awaitNext(), "the first message is due at the start");
        clock.set(15 * MS);
        for (int i = 1; i <= 10; i++) {
            assertEquals(5 * MS + i * MS, pacer.awaitNext(), "message " + i + " keeps its slot");
        }
    }

    @Test
    void awaitNext_moreThanMaxLagBehind_restartsTheScheduleFromNow() {
        AtomicLong clock = new AtomicLong(0);
        Pacer pacer = new Pacer(1000, clock::get, () -> false);
        pacer.awaitNext();
        long late = Pacer.MAX_LAG_NANOS + 10 * MS;
        clock.set(late);
        assertEquals(late, pacer.awaitNext(), "missed sends are dropped, not burst");
        clock.set(late + 3 * MS);
        assertEquals(late + MS, pacer.awaitNext());
    }

    @Test
    void awaitNext_stoppedWhileAhead_returnsMinusOne() {
        AtomicLong clock = new AtomicLong(0);
        AtomicBoolean stopped = new AtomicBoolean();
        Pacer pacer = new Pacer(1, clock::get, stopped::get);
        assertEquals(0, pacer.awaitNext());
        stopped.set(true);
        assertEquals(-1, pacer.awaitNext(), "the next message is due in 1 s, but the stop comes first");
    }

    @Test
    void awaitNext_unlimited_returnsNow() {
        AtomicLong clock = new AtomicLong(42);
        Pacer pacer = new Pacer(0, clock::get, () -> false);
        assertFalse(pacer.limited());
        assertEquals(42, pacer.awaitNext());
        assertEquals(42, pacer.awaitNext());
    }
}
