package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.TIMEOUT_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** No marker is written, and no EndTxn answered, for a decision that is not durable yet. */
class TransactionDurabilityTest {

    private final TxnTestKit kit = new TxnTestKit();

    @Test
    void end_prepareNotDurableYet_noAnswerNoMarkersUntilItIs() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.log.hold();
        CompletableFuture<ProducerResult> end = kit.coordinator.endTxn("t", p.producerId(), p.producerEpoch(), true,
                TxnTestKit.V1);
        assertFalse(end.isDone());
        assertTrue(kit.markers.calls.isEmpty());
        kit.log.release();
        assertEquals(Errors.NONE, end.join().error());
        assertEquals(1, kit.markers.calls.size());
        assertEquals("CompleteCommit", kit.state("t"));
    }

    @Test
    void end_prepareAppendFails_errorNoMarkersAndTheLogStateComesBack() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.log.hold();
        CompletableFuture<ProducerResult> end = kit.coordinator.endTxn("t", p.producerId(), p.producerEpoch(), true,
                TxnTestKit.V1);
        kit.log.fail(new NotLeaderOrFollowerException("the partition moved"));
        assertEquals(Errors.NOT_COORDINATOR, end.join().error());
        assertTrue(kit.markers.calls.isEmpty());
        int partition = kit.coordinator.partitionFor("t");
        assertFalse(kit.coordinator.isServing(partition), "state ahead of the log: unloaded to be reloaded");
        kit.coordinator.loadPartition(partition);
        assertEquals("Ongoing", kit.state("t"));
    }

    @Test
    void timeout_abortNotDurableYet_noMarkersUntilItIs() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.log.hold();
        kit.timer.advance(TIMEOUT_MS + 10_000);
        assertTrue(kit.markers.calls.isEmpty());
        kit.log.release();
        assertEquals(1, kit.markers.calls.size());
        assertEquals("CompleteAbort", kit.state("t"));
    }
}
