package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** DescribeTransactions, ListTransactions, and routing. */
class TransactionAdminTest {

    private final TxnTestKit kit = new TxnTestKit();

    private List<String> listed(ListTransactionsRequestData req) {
        return kit.coordinator.listTransactions(req).join().transactionStates().stream()
                .map(ListTransactionsResponseData.TransactionState::transactionalId).toList();
    }

    @Test
    void describe_knownUnknownAndEmptyIds_inRequestOrder() {
        ProducerResult p = kit.init("t");
        kit.add("t", p, "orders", 1);
        List<DescribeTransactionsResponseData.TransactionState> states = kit.coordinator
                .describeTransactions(List.of("nobody", "t", "")).join().transactionStates();
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND.code(), states.get(0).errorCode());
        DescribeTransactionsResponseData.TransactionState t = states.get(1);
        assertEquals(Errors.NONE.code(), t.errorCode());
        assertEquals("Ongoing", t.transactionState());
        assertEquals(p.producerId(), t.producerId());
        assertEquals(p.producerEpoch(), t.producerEpoch());
        assertEquals(TxnTestKit.TIMEOUT_MS, t.transactionTimeoutMs());
        assertEquals(List.of(1), t.topics().find("orders").partitions());
        assertEquals(Errors.INVALID_REQUEST.code(), states.get(2).errorCode());
    }

    @Test
    void list_filtersByStateProducerIdDurationAndPattern() {
        ProducerResult a = kit.init("app-a");
        kit.add("app-a", a, "orders", 0);
        kit.timer.advance(5_000);
        ProducerResult b = kit.init("app-b");
        kit.add("app-b", b, "orders", 0);
        kit.init("other");
        assertEquals(List.of("app-a", "app-b", "other"), listed(new ListTransactionsRequestData()));
        assertEquals(List.of("app-a", "app-b"), listed(new ListTransactionsRequestData().setStateFilters(List.of("Ongoing"))));
        assertEquals(List.of("app-b"), listed(new ListTransactionsRequestData().setProducerIdFilters(List.of(b.producerId()))));
        assertEquals(List.of("app-a", "other"), listed(new ListTransactionsRequestData()
                .setStateFilters(List.of("Ongoing", "Empty")).setProducerIdFilters(List.of(a.producerId(), 1002L))));
        assertEquals(List.of("app-a"), listed(new ListTransactionsRequestData().setStateFilters(List.of("Ongoing"))
                .setDurationFilter(1_000)), "only the one running longer than a second");
        assertEquals(List.of("app-a", "app-b"), listed(new ListTransactionsRequestData().setTransactionalIdPattern("app-.*")));
    }

    @Test
    void list_unknownStateNames_reportedAndMatchNothing() {
        kit.init("t");
        ListTransactionsResponseData r = kit.coordinator.listTransactions(new ListTransactionsRequestData()
                .setStateFilters(List.of("Bogus"))).join();
        assertEquals(List.of("Bogus"), r.unknownStateFilters());
        assertEquals(List.of(), r.transactionStates());
        r = kit.coordinator.listTransactions(new ListTransactionsRequestData()
                .setStateFilters(List.of("Bogus", "Empty"))).join();
        assertEquals(List.of("Bogus"), r.unknownStateFilters());
        assertEquals(1, r.transactionStates().size());
    }

    @Test
    void list_invalidPattern_invalidRegularExpression() {
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), kit.coordinator.listTransactions(
                new ListTransactionsRequestData().setTransactionalIdPattern("(")).join().errorCode());
    }

    @Test
    void partitionFor_kafkasAbsHashModuloPartitions() {
        TxnTestKit fifty = new TxnTestKit(Map.of(TransactionCoordinatorConfig.STATE_LOG_PARTITIONS_CONFIG, 50));
        assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
        assertEquals(0, fifty.coordinator.partitionFor("polygenelubricants"), "Kafka's Utils.abs maps MIN_VALUE to 0");
        int h = "my-transactional-id".hashCode();
        assertEquals(Math.abs(h) % 50, fifty.coordinator.partitionFor("my-transactional-id"));
        assertEquals(Math.abs("x".hashCode()) % 3, kit.coordinator.partitionFor("x"));
    }

    @Test
    void errorFor_logAndRuntimeFailures_kafkasCoordinatorCodes() {
        assertEquals(Errors.NOT_COORDINATOR, TransactionCoordinator.errorFor(
                new org.apache.kafka.common.errors.NotLeaderOrFollowerException("moved")));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, TransactionCoordinator.errorFor(
                new java.util.concurrent.CompletionException(
                        new org.apache.kafka.common.errors.NotEnoughReplicasException("x"))));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, TransactionCoordinator.errorFor(
                new org.apache.kafka.common.errors.CoordinatorLoadInProgressException("loading")));
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, TransactionCoordinator.errorFor(new IllegalStateException("bug")));
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, TransactionCoordinator.errorFor(
                new org.apache.kafka.common.errors.RecordTooLargeException("big")));
    }
}
