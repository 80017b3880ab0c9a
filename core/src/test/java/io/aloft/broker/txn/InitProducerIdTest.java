package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.TIMEOUT_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class InitProducerIdTest {

    private final TxnTestKit kit = new TxnTestKit();

    @Test
    void init_newTransactionalId_freshProducerIdAtEpochZero() {
        assertEquals(ProducerResult.ok(1000, (short) 0), kit.init("t"));
        assertEquals("Empty", kit.state("t"));
    }

    @Test
    void init_again_sameProducerIdNextEpoch() {
        kit.init("t");
        assertEquals(ProducerResult.ok(1000, (short) 1), kit.init("t"));
        assertEquals(ProducerResult.ok(1001, (short) 0), kit.init("other"));
    }

    @Test
    void init_timeoutAboveMaxOrNotPositive_invalidTransactionTimeoutAndNothingWritten() {
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT,
                kit.coordinator.initProducerId("t", 900_001, -1, (short) -1).join().error());
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT,
                kit.coordinator.initProducerId("t", 0, -1, (short) -1).join().error());
        assertEquals(Errors.NONE, kit.coordinator.initProducerId("t", 900_000, -1, (short) -1).join().error());
        assertEquals(1, kit.logSize());
    }

    @Test
    void init_emptyIdOrOnlyOneOfIdAndEpoch_invalidRequest() {
        assertEquals(Errors.INVALID_REQUEST, kit.init("").error());
        assertEquals(Errors.INVALID_REQUEST, kit.init("t", 5, -1).error());
        assertEquals(Errors.INVALID_REQUEST, kit.init("t", -1, 3).error());
    }

    @Test
    void init_kip360_currentEpochBumpsRetryGetsSameAnswerOthersFenced() {
        kit.init("t");
        assertEquals(ProducerResult.ok(1000, (short) 1), kit.init("t", 1000, 0));
        assertEquals(ProducerResult.ok(1000, (short) 1), kit.init("t", 1000, 0), "a retry of the bump");
        assertEquals(Errors.PRODUCER_FENCED, kit.init("t", 1000, 5).error());
        assertEquals(Errors.PRODUCER_FENCED, kit.init("t", 999, 1).error());
    }

    @Test
    void init_epochExhausted_newProducerIdAndItsRetryAnsweredTheSame() {
        kit.seed("t", new TransactionRecord.Metadata(50, -1, -1, (short) (Short.MAX_VALUE - 1), (short) -1,
                TIMEOUT_MS, TransactionState.COMPLETE_COMMIT, Map.of(), 0, 0, (short) 1));
        ProducerResult rotated = kit.init("t", 50, Short.MAX_VALUE - 1);
        assertEquals(ProducerResult.ok(1000, (short) 0), rotated);
        assertEquals(rotated, kit.init("t", 50, Short.MAX_VALUE - 1), "the retry of the rotation");
        assertEquals(ProducerResult.ok(1000, (short) 1), kit.init("t", 1000, 0));
    }

    @Test
    void init_openTransaction_abortedWithFencedEpochAndClientToldToRetry() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0, 1);
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, kit.init("t").error());
        TxnTestKit.MarkerCall abort = kit.markers.last();
        assertFalse(abort.commit());
        assertEquals(1, abort.epoch(), "the markers fence the old epoch");
        assertEquals(Map.of("orders", List.of(0, 1)), abort.partitions());
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(ProducerResult.ok(1000, (short) 2), kit.init("t"), "the retry bumps once more");
        assertEquals(Errors.PRODUCER_FENCED, kit.end("t", p, true).error(), "the zombie is fenced");
    }

    @Test
    void init_whileMarkersAreWritten_concurrentTransactionsUntilComplete() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.markers.hold = true;
        assertEquals(Errors.NONE, kit.end("t", p, true).error());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, kit.init("t").error());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, kit.add("t", p, "orders", 1));
        kit.markers.last().future().complete(null);
        assertEquals("CompleteCommit", kit.state("t"));
        assertEquals(ProducerResult.ok(1000, (short) 1), kit.init("t"));
    }

    @Test
    void init_noProducerIdAtHand_coordinatorLoadInProgress() {
        kit.ids.dry = true;
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, kit.init("t").error());
        kit.ids.dry = false;
        assertEquals(ProducerResult.ok(1000, (short) 0), kit.init("t"));
    }
}
