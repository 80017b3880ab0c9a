package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.TIMEOUT_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Transaction timeouts, transactional id expiration and marker retries, driven by the manual timer. */
class TransactionTimersTest {

    private static final int CHECK_MS = 10_000;

    private final TxnTestKit kit = new TxnTestKit(Map.of(
            TransactionCoordinatorConfig.ID_EXPIRATION_MS_CONFIG, 3_600_000,
            TransactionCoordinatorConfig.REMOVE_EXPIRED_INTERVAL_MS_CONFIG, 60_000));

    @Test
    void timeout_ongoingPastItsTimeout_abortedAndProducerFenced() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.timer.advance(TIMEOUT_MS - CHECK_MS);
        assertEquals("Ongoing", kit.state("t"), "not timed out yet");
        kit.timer.advance(2 * CHECK_MS);
        TxnTestKit.MarkerCall abort = kit.markers.last();
        assertFalse(abort.commit());
        assertEquals(p.producerEpoch() + 1, abort.epoch());
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(p.producerEpoch() + 1, kit.describe("t").producerEpoch());
        assertEquals(Errors.PRODUCER_FENCED, kit.add("t", p, "orders", 0));
        assertEquals(Errors.PRODUCER_FENCED, kit.end("t", p, true).error());
    }

    @Test
    void timeout_noProducerIdAtHandForAnExhaustedV2Epoch_abortedAtALaterRound() {
        kit.seed("t", new TransactionRecord.Metadata(50, -1, -1, (short) (Short.MAX_VALUE - 1), (short) -1,
                TIMEOUT_MS, TransactionState.ONGOING, Map.of("orders", java.util.List.of(0)), 0, 0, TxnTestKit.V2));
        kit.ids.dry = true;
        kit.timer.advance(CHECK_MS);
        assertEquals("Ongoing", kit.state("t"));
        kit.ids.dry = false;
        kit.timer.advance(CHECK_MS);
        assertEquals(Short.MAX_VALUE, kit.markers.last().epoch());
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(1000, kit.describe("t").producerId(), "the fenced producer's id is retired");
    }

    @Test
    void timeout_oneTransactionThatCannotBeFenced_othersStillAbortedLater() {
        kit.seed("stuck", new TransactionRecord.Metadata(50, -1, -1, Short.MAX_VALUE, (short) -1, TIMEOUT_MS,
                TransactionState.ONGOING, Map.of("orders", java.util.List.of(0)), 0, 0, TxnTestKit.V1));
        kit.timer.advance(CHECK_MS); // the first round finds only "stuck", whose epoch cannot go higher
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 1);
        kit.timer.advance(TIMEOUT_MS + CHECK_MS);
        assertEquals("CompleteAbort", kit.state("t"), "the checks kept running");
        assertEquals("Ongoing", kit.state("stuck"));
    }

    @Test
    void timeout_idleOrCompletedTransactions_untouched() {
        kit.init("idle");
        ProducerResult p = kit.init("done");
        kit.add("done", p, "orders", 0);
        kit.end("done", p, true);
        kit.timer.advance(TIMEOUT_MS * 2L);
        assertEquals("Empty", kit.state("idle"));
        assertEquals("CompleteCommit", kit.state("done"));
        assertEquals(p.producerEpoch(), kit.describe("done").producerEpoch());
    }

    @Test
    void markers_failedWrite_retriedAfterBackoffUntilWritten() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.markers.hold = true;
        kit.end("t", p, true);
        kit.markers.last().future().completeExceptionally(new RuntimeException("partition leader moving"));
        assertEquals("PrepareCommit", kit.state("t"));
        assertEquals(1, kit.markers.calls.size());
        kit.markers.hold = false;
        kit.timer.advance(TransactionCoordinatorShard.MARKER_RETRY_BACKOFF_MS);
        assertEquals(2, kit.markers.calls.size());
        assertEquals("CompleteCommit", kit.state("t"));
    }

    @Test
    void expiration_idleIdPastExpiration_tombstonedAndForgotten() {
        kit.init("t");
        kit.init("other");
        kit.timer.advance(3_600_000 + 60_000);
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND.code(), kit.describe("t").errorCode());
        kit.restart();
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND.code(), kit.describe("t").errorCode(), "the tombstone is durable");
        assertEquals(ProducerResult.ok(1002, (short) 0), kit.init("t"), "a forgotten id starts with a new producer id");
    }

    @Test
    void expiration_ongoingTransactionOlderThanExpiration_kept() {
        TxnTestKit short_ = new TxnTestKit(Map.of(TransactionCoordinatorConfig.ID_EXPIRATION_MS_CONFIG, 300_000,
                TransactionCoordinatorConfig.REMOVE_EXPIRED_INTERVAL_MS_CONFIG, 60_000));
        ProducerResult open = short_.coordinator.initProducerId("open", 900_000, -1, (short) -1).join();
        short_.add("open", open, "orders", 0);
        short_.init("idle");
        short_.timer.advance(600_000);
        assertEquals("Ongoing", short_.state("open"));
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND.code(), short_.describe("idle").errorCode());
    }

    @Test
    void expiration_recentlyUsedId_kept() {
        ProducerResult p = kit.init("t");
        kit.timer.advance(3_000_000);
        kit.add("t", p, "orders", 0);
        kit.end("t", p, true);
        kit.timer.advance(1_000_000);
        assertEquals("CompleteCommit", kit.state("t"));
    }
}
