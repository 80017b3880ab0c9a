package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RunStatsTest {
    @Test
    void close_windowsSeeOnlyWhatWasRecordedWhileOpen() {
        RunStats stats = new RunStats();
        stats.sent(100, 1000);
        Window outer = stats.open();
        stats.sent(100, 2000);
        Window inner = stats.open();
        stats.sent(100, 3000);
        stats.received(100, 7);
        stats.sendFailed();
        stats.close(inner);
        stats.sent(100, 4000);
        stats.close(outer);

        assertEquals(1, inner.sentMsgs);
        assertEquals(1, inner.receivedMsgs);
        assertEquals(1, inner.sendErrors);
        assertEquals(3.0, inner.publishMs(100), 0.01);
        assertEquals(7.0, inner.e2eMs(50));
        assertEquals(3, outer.sentMsgs);
        assertEquals(300, outer.sentBytes);
        assertEquals(2.0, outer.publishMs(0), 0.01);
        assertEquals(4.0, outer.publishMs(100), 0.01);
        assertEquals(4, stats.totalSent(), "totals cover the whole run");
    }

    @Test
    void roll_consecutiveWindowsSplitTheRecordsWithoutLoss() {
        RunStats stats = new RunStats();
        Window first = stats.open();
        stats.received(10, 1);
        Window second = stats.roll(first);
        stats.received(10, 2);
        stats.received(10, 2);
        stats.close(second);
        assertEquals(1, first.receivedMsgs);
        assertEquals(2, second.receivedMsgs);
        assertEquals(20, second.receivedBytes);
    }

    @Test
    void window_withNothingRecorded_reportsNaNLatencies() {
        RunStats stats = new RunStats();
        Window w = stats.close(stats.open());
        assertTrue(Double.isNaN(w.publishMs(99)));
        assertTrue(Double.isNaN(w.e2eMs(99)));
        assertTrue(Double.isNaN(w.publishDelayMs(99)));
        assertEquals(0, w.sentMsgs);
    }

    @Test
    void received_negativeLatency_countsAsZero() {
        RunStats stats = new RunStats();
        Window w = stats.open();
        stats.received(1, -5);
        stats.close(w);
        assertEquals(0.0, w.e2eMs(100));
    }
}
