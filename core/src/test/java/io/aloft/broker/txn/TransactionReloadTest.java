package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What a new owner of the partitions (a restart, a move) rebuilds from __transaction_state. */
class TransactionReloadTest {

    private final TxnTestKit kit = new TxnTestKit();

    @Test
    void reload_ongoingTransaction_sameProducerEpochAndPartitions() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 4, 2);
        DescribeTransactionsResponseData.TransactionState before = kit.describe("t");
        kit.restart();
        assertEquals(before, kit.describe("t"));
        assertEquals(Errors.NONE, kit.add("t", p, "orders", 5), "the producer carries on");
        assertEquals(Errors.NONE, kit.end("t", p, true).error());
        assertEquals("CompleteCommit", kit.state("t"));
    }

    @Test
    void reload_prepareCommitWithMarkersUnwritten_markersWrittenAgainThenComplete() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.markers.hold = true;
        kit.end("t", p, true);
        kit.restart();
        assertEquals(2, kit.markers.calls.size(), "the new owner writes the markers again");
        TxnTestKit.MarkerCall again = kit.markers.last();
        assertTrue(again.commit());
        assertEquals(List.of(0), again.partitions().get("orders"));
        kit.markers.calls.get(0).future().complete(null); // the old owner's write, answered late
        assertEquals("PrepareCommit", kit.state("t"), "a late answer to the old owner changes nothing here");
        again.future().complete(null);
        assertEquals("CompleteCommit", kit.state("t"));
        kit.restart();
        assertEquals("CompleteCommit", kit.state("t"));
        assertEquals(2, kit.markers.calls.size(), "a completed transaction needs no markers");
    }

    @Test
    void unloaded_partition_notCoordinator() {
        String id = "t";
        kit.coordinator.unloadPartition(kit.coordinator.partitionFor(id));
        assertEquals(Errors.NOT_COORDINATOR, kit.init(id).error());
        assertEquals(Errors.NOT_COORDINATOR.code(), kit.describe(id).errorCode());
    }
}
