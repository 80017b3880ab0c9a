package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** AddPartitionsToTxn, AddOffsetsToTxn and EndTxn of v1 clients, markers included. */
class TransactionLifecycleTest {

    private final TxnTestKit kit = new TxnTestKit();

    @Test
    void add_unknownIdOrOtherProducer_invalidProducerIdMapping() {
        ProducerResult p = kit.init("t");
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, kit.add("nobody", p, "orders", 0));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING,
                kit.add("t", ProducerResult.ok(p.producerId() + 1, p.producerEpoch()), "orders", 0));
    }

    @Test
    void add_olderOrNewerEpoch_producerFenced() {
        ProducerResult old = kit.init("t");
        ProducerResult current = kit.init("t");
        assertEquals(Errors.PRODUCER_FENCED, kit.add("t", old, "orders", 0));
        assertEquals(Errors.PRODUCER_FENCED,
                kit.add("t", ProducerResult.ok(current.producerId(), (short) 5), "orders", 0));
        assertEquals(Errors.NONE, kit.add("t", current, "orders", 0));
    }

    @Test
    void add_fromEmpty_ongoingStartedNowWithThePartitions() {
        ProducerResult p = kit.init("t");
        long now = kit.timer.nowMs();
        assertEquals(Errors.NONE, kit.add("t", p, "orders", 2));
        kit.timer.advance(10);
        assertEquals(Errors.NONE, kit.add("t", p, "orders", 1));
        DescribeTransactionsResponseData.TransactionState d = kit.describe("t");
        assertEquals("Ongoing", d.transactionState());
        assertEquals(now, d.transactionStartTimeMs(), "the first AddPartitions starts the transaction");
        assertEquals(List.of(1, 2), d.topics().find("orders").partitions());
    }

    @Test
    void add_partitionsAlreadyInTheTransaction_noneAndNothingWritten() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0, 1);
        int before = kit.logSize();
        assertEquals(Errors.NONE, kit.add("t", p, "orders", 1));
        assertEquals(before, kit.logSize());
    }

    @Test
    void addOffsets_groupsOffsetsPartitionJoinsTheTransaction() {
        ProducerResult p = kit.init("t");
        assertEquals(Errors.NONE, kit.coordinator.addOffsetsToTxn("t", p.producerId(), p.producerEpoch(), 17,
                TxnTestKit.V1).join());
        assertEquals(List.of(17), kit.describe("t").topics().find("__consumer_offsets").partitions());
        kit.end("t", p, true);
        assertEquals(Map.of("__consumer_offsets", List.of(17)), kit.markers.last().partitions());
    }

    @Test
    void end_commit_preparedThenMarkersThenComplete() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.add("t", p, "payments", 3);
        kit.markers.hold = true;
        assertEquals(ProducerResult.ok(p.producerId(), p.producerEpoch()), kit.end("t", p, true));
        assertEquals("PrepareCommit", kit.state("t"));
        TxnTestKit.MarkerCall call = kit.markers.last();
        assertTrue(call.commit());
        assertEquals(p.producerId(), call.producerId());
        assertEquals(p.producerEpoch(), call.epoch());
        assertEquals(1, call.transactionVersion());
        assertEquals(Map.of("orders", List.of(0), "payments", List.of(3)), call.partitions());
        call.future().complete(null);
        DescribeTransactionsResponseData.TransactionState d = kit.describe("t");
        assertEquals("CompleteCommit", d.transactionState());
        assertTrue(d.topics().isEmpty(), "a completed transaction holds no partitions");
    }

    @Test
    void end_retriedAfterCompletion_noneButTheOppositeOutcomeInvalidTxnState() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.end("t", p, true);
        assertEquals(Errors.NONE, kit.end("t", p, true).error());
        assertEquals(Errors.INVALID_TXN_STATE, kit.end("t", p, false).error());
        assertEquals(1, kit.markers.calls.size(), "a retry writes no markers");
    }

    @Test
    void end_abortWhileCommitIsBeingWritten_invalidTxnState_sameOutcomeConcurrent() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.markers.hold = true;
        kit.end("t", p, true);
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, kit.end("t", p, true).error());
        assertEquals(Errors.INVALID_TXN_STATE, kit.end("t", p, false).error());
    }

    @Test
    void end_noTransactionOpen_v1_invalidTxnState() {
        ProducerResult p = kit.init("t");
        assertEquals(Errors.INVALID_TXN_STATE, kit.end("t", p, true).error());
        assertEquals(Errors.INVALID_TXN_STATE, kit.end("t", p, false).error());
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, kit.end("nobody", p, true).error());
    }

    @Test
    void add_afterCompletion_newTransactionWithOnlyItsPartitions() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        kit.end("t", p, false);
        assertEquals("CompleteAbort", kit.state("t"));
        assertEquals(Errors.NONE, kit.add("t", p, "payments", 1));
        DescribeTransactionsResponseData.TransactionState d = kit.describe("t");
        assertEquals("Ongoing", d.transactionState());
        assertEquals(1, d.topics().size());
        assertEquals(List.of(1), d.topics().find("payments").partitions());
    }

    @Test
    void verify_partitionsInOrOutOfTheTransaction_noneOrAbortableAndNothingWritten() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 0);
        int before = kit.logSize();
        Map<String, Map<Integer, Errors>> r = kit.coordinator.verifyPartitionsInTxn("t", p.producerId(),
                p.producerEpoch(), Map.of("orders", List.of(0, 1))).join();
        assertEquals(Map.of("orders", Map.of(0, Errors.NONE, 1, Errors.TRANSACTION_ABORTABLE)), r);
        assertEquals(before, kit.logSize());
        assertEquals(Map.of("orders", Map.of(0, Errors.PRODUCER_FENCED)), kit.coordinator.verifyPartitionsInTxn("t",
                p.producerId(), (short) (p.producerEpoch() + 1), Map.of("orders", List.of(0))).join());
        assertEquals(Map.of("orders", Map.of(0, Errors.INVALID_PRODUCER_ID_MAPPING)), kit.coordinator
                .verifyPartitionsInTxn("nobody", 1, (short) 0, Map.of("orders", List.of(0))).join());
    }
}
