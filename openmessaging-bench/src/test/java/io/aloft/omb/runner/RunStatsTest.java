package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
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

    @Test
    void transactions_countMessagesAtCommitAndAbortedOnesAsErrors() {
        RunStats stats = new RunStats();
        Window w = stats.open();
        stats.acked(1000);
        stats.acked(2000);
        stats.committed(2, 200, 5000);
        stats.aborted(3);
        stats.close(w);
        assertEquals(2, w.sentMsgs);
        assertEquals(200, w.sentBytes);
        assertEquals(3, w.sendErrors);
        assertEquals(1, w.committedTxns);
        assertEquals(1, w.abortedTxns);
        assertEquals(2, w.publishLatencyMicros.getTotalCount(), "acks carry the publish latency");
        assertEquals(5.0, w.commitMs(50), 0.01);

        ResultFigures.Totals totals = new ResultFigures.Totals(2, 2, 2, 3, 1, 1, 0);
        Map<String, Double> txn = ResultFigures.of(w, null, totals, new ResultFigures.Transactions(100, 1, 1), 100);
        assertEquals(1 / w.seconds(), txn.get(RunResult.COMMIT_RATE_TXNS), 1e-6);
        assertEquals(5.0, txn.get(RunResult.COMMIT_LATENCY_P99_MS), 0.01);
        assertEquals(1.0, txn.get("abortedTransactions"));
        assertEquals(100.0, txn.get("messagesPerTransaction"));
        Map<String, Double> plain = ResultFigures.of(w, null, totals, null, 100);
        assertFalse(plain.containsKey(RunResult.COMMIT_RATE_TXNS), "no transaction figures without transactions");
    }

    @Test
    void shareGroups_redeliveriesInTheirOwnFiguresAndConsumedOnce() {
        RunStats stats = new RunStats();
        Window w = stats.open();
        stats.received(100, 4);
        stats.released();
        stats.redelivered(8_000);
        stats.receivedAgain(100);
        stats.redeliveredUnreleased();
        stats.receivedAgain(100);
        stats.close(w);
        assertEquals(3, w.receivedMsgs);
        assertEquals(300, w.receivedBytes);
        assertEquals(1, w.e2eLatencyMillis.getTotalCount(), "redeliveries carry no end-to-end sample");
        assertEquals(1, stats.totalReleased());
        assertEquals(1, stats.totalRedelivered());

        ResultFigures.Totals totals = new ResultFigures.Totals(3, 3, 3, 0, 1, 2, 0);
        Map<String, Double> share = ResultFigures.of(w, null, totals, null,
                new ResultFigures.Share(0.01, 1, 1, 0), 100);
        assertEquals(8.0, share.get(RunResult.REDELIVERY_LATENCY_P50_MS), 0.01);
        assertEquals(8.0, share.get(RunResult.REDELIVERY_LATENCY_P99_MS), 0.01);
        assertEquals(1.0, share.get("releasedMsgs"));
        assertEquals(1.0, share.get("redeliveredMsgs"));
        assertEquals(1.0, share.get("unreleasedRedeliveries"));
        assertEquals(0.0, share.get("releasedNotRedeliveredAtEnd"));
        assertEquals(0.01, share.get("releaseFraction"));
        Map<String, Double> plain = ResultFigures.of(w, null, totals, null, 100);
        assertFalse(plain.containsKey(RunResult.REDELIVERY_LATENCY_P99_MS), "no share figures without share groups");
    }
}
