package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.TIMEOUT_MS;
import static io.aloft.broker.txn.TxnTestKit.V2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** KIP-890 (transaction version 2): the epoch is bumped at every EndTxn. */
class TransactionsV2Test {

    private final TxnTestKit kit = new TxnTestKit();

    @Test
    void end_v2_epochBumpedAnsweredAndCarriedByTheMarkers() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, V2, "orders", 0);
        ProducerResult next = kit.end("t", p, true, V2);
        assertEquals(ProducerResult.ok(p.producerId(), (short) (p.producerEpoch() + 1)), next);
        assertEquals(next.producerEpoch(), kit.markers.last().epoch());
        assertEquals(2, kit.markers.last().transactionVersion(), "KIP-1228: partitions apply version 2's rules");
        assertEquals("CompleteCommit", kit.state("t"));
        assertEquals(next, kit.end("t", p, true, V2), "a retry with the old epoch gets the new one");
        assertEquals(Errors.PRODUCER_FENCED, kit.add("t", p, V2, "orders", 0));
        assertEquals(Errors.NONE, kit.add("t", next, V2, "orders", 0), "the next transaction uses the new epoch");
    }

    @Test
    void end_v2_abortWithNothingOpen_epochBumpedNoMarkers() {
        ProducerResult p = kit.init("t");
        ProducerResult next = kit.end("t", p, false, V2);
        assertEquals(ProducerResult.ok(p.producerId(), (short) 1), next);
        assertTrue(kit.markers.calls.isEmpty());
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(Errors.INVALID_TXN_STATE, kit.end("t", next, true, V2).error());
    }

    @Test
    void end_v2_epochExhausted_movesToANewProducerIdOnCompletion() {
        short last = Short.MAX_VALUE - 1;
        kit.seed("t", new TransactionRecord.Metadata(50, -1, -1, last, (short) -1, TIMEOUT_MS,
                TransactionState.ONGOING, Map.of("orders", List.of(0)), 0, 0, V2));
        ProducerResult old = ProducerResult.ok(50, last);
        kit.markers.hold = true;
        assertEquals(ProducerResult.ok(1000, (short) 0), kit.end("t", old, true, V2));
        TxnTestKit.MarkerCall markers = kit.markers.last();
        assertEquals(50, markers.producerId());
        assertEquals(Short.MAX_VALUE, markers.epoch());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, kit.end("t", old, true, V2).error());
        markers.future().complete(null);
        assertEquals(1000, kit.describe("t").producerId());
        assertEquals(0, kit.describe("t").producerEpoch());
        assertEquals(ProducerResult.ok(1000, (short) 0), kit.end("t", old, true, V2), "a retry after the move");
    }

    @Test
    void timeout_v2_fencedTwoEpochsUpSoTheZombiesEndTxnIsNoRetry() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, V2, "orders", 0);
        kit.timer.advance(TIMEOUT_MS + 10_000);
        TxnTestKit.MarkerCall abort = kit.markers.last();
        assertFalse(abort.commit());
        assertEquals(p.producerEpoch() + 2, abort.epoch());
        assertEquals(2, abort.transactionVersion());
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(Errors.PRODUCER_FENCED, kit.end("t", p, false, V2).error());
    }
}
