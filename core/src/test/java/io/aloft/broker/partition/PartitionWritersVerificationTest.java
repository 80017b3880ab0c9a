package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-890 at the partition's writer: the first batch of a transaction waits for its coordinator's
 * answer with every append queued behind it, so arrival order holds (the producer's own later
 * batch cannot overtake it); the coordinator is asked once per transaction and partition (later
 * batches find it open in the log); its answer becomes the produce's code as Kafka maps it; and a
 * transaction that ends while its first batch is being checked is not reopened by that batch.
 */
class PartitionWritersVerificationTest {
    private static final long PID = 11;
    private static final short EPOCH = 0;

    @TempDir
    Path dir;

    /** A coordinator whose answers the test gives, one future per question. */
    private static final class FakeCoordinator implements TransactionVerifier {
        final List<CompletableFuture<Errors>> asked = new CopyOnWriteArrayList<>();
        final List<TransactionCheck> checks = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<Errors> check(String transactionalId, long producerId, short producerEpoch,
                TopicPartition tp, TransactionCheck check) {
            CompletableFuture<Errors> answer = new CompletableFuture<>();
            asked.add(answer);
            checks.add(check);
            return answer;
        }
    }

    private static MemoryRecords txn(long pid, int seq) {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, EPOCH, seq,
                new SimpleRecord(("v" + seq).getBytes()));
    }

    private static MemoryRecords plain(long pid, int seq) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, EPOCH, seq,
                new SimpleRecord(("i" + seq).getBytes()));
    }

    private static PartitionWriters writers(PartitionLog log, FakeCoordinator coordinator) {
        PartitionWriters w = new PartitionWriters(tp -> CompletableFuture.completedFuture(log), topic -> null);
        w.verifyTransactionsWith(coordinator);
        return w;
    }

    private static CompletableFuture<AppendResult> append(PartitionWriters w, MemoryRecords records,
            TransactionCheck check) {
        return w.append(LogFixture.TP, records, Long.MAX_VALUE, "tx", check);
    }

    @Test
    void firstBatchWaitsForTheCoordinator_queueBehindKeepsArrivalOrder_askedOncePerTransaction() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> first = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> second = append(w, txn(PID, 1), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> other = append(w, plain(PID + 1, 0), TransactionCheck.ADD_PARTITION);
            assertEquals(1, coordinator.asked.size());
            assertFalse(first.isDone() || second.isDone() || other.isDone(), "all wait behind the check");
            assertEquals(0, log.highWatermark());
            coordinator.asked.get(0).complete(Errors.NONE);
            assertEquals(0, LogFixture.get(first).baseOffset());
            assertEquals(1, LogFixture.get(second).baseOffset());
            assertEquals(2, LogFixture.get(other).baseOffset());
            assertEquals(1, coordinator.asked.size(), "the open transaction needs no second check");
            assertEquals(List.of(TransactionCheck.ADD_PARTITION), coordinator.checks);
            // Ended: the next transaction's first batch is checked again.
            LogFixture.get(log.appendMarker(PID, EPOCH, 0, true, (short) 1));
            CompletableFuture<AppendResult> next = append(w, txn(PID, 2), TransactionCheck.VERIFY);
            assertEquals(2, coordinator.asked.size());
            coordinator.asked.get(1).complete(Errors.NONE);
            assertEquals(4, LogFixture.get(next).baseOffset());
        }
    }

    @Test
    void coordinatorsAnswer_becomesTheProduceCode_asKafkaMapsIt() throws Exception {
        record Case(Errors coordinator, TransactionCheck check, Errors produce) {
        }
        List<Case> cases = List.of(
                new Case(Errors.TRANSACTION_ABORTABLE, TransactionCheck.VERIFY_DEFAULT_ERROR, Errors.INVALID_TXN_STATE),
                new Case(Errors.TRANSACTION_ABORTABLE, TransactionCheck.VERIFY, Errors.TRANSACTION_ABORTABLE),
                new Case(Errors.PRODUCER_FENCED, TransactionCheck.ADD_PARTITION, Errors.INVALID_PRODUCER_EPOCH),
                new Case(Errors.CONCURRENT_TRANSACTIONS, TransactionCheck.ADD_PARTITION, Errors.NOT_ENOUGH_REPLICAS),
                new Case(Errors.COORDINATOR_NOT_AVAILABLE, TransactionCheck.VERIFY, Errors.NOT_ENOUGH_REPLICAS),
                new Case(Errors.INVALID_PRODUCER_ID_MAPPING, TransactionCheck.VERIFY,
                        Errors.INVALID_PRODUCER_ID_MAPPING));
        long pid = 100;
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            for (Case c : cases) {
                CompletableFuture<AppendResult> refused = append(w, txn(pid++, 0), c.check());
                coordinator.asked.get(coordinator.asked.size() - 1).complete(c.coordinator());
                LogFixture.assertFails(c.produce(), refused);
            }
            CompletableFuture<AppendResult> unreachable = append(w, txn(pid, 0), TransactionCheck.VERIFY);
            coordinator.asked.get(coordinator.asked.size() - 1).completeExceptionally(new RuntimeException("down"));
            LogFixture.assertFails(Errors.NOT_ENOUGH_REPLICAS, unreachable);
            assertEquals(0, log.highWatermark(), "nothing refused was appended");
        }
    }

    @Test
    void transactionEndsWhileItsFirstBatchIsChecked_batchRefused() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> late = append(w, txn(PID, 0), TransactionCheck.VERIFY);
            LogFixture.get(log.appendMarker(PID, EPOCH, 0, false, (short) 1)); // aborted by its timeout meanwhile
            coordinator.asked.get(0).complete(Errors.NONE); // the answer given before the abort
            LogFixture.assertFails(Errors.INVALID_TXN_STATE, late);
            assertEquals(1, log.highWatermark(), "only the marker: no transaction left hanging");
        }
    }

    @Test
    void withoutVerifier_transactionalBatchesAreAppendedUnchecked() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            PartitionWriters w = new PartitionWriters(tp -> CompletableFuture.completedFuture(log), topic -> null);
            assertEquals(0, LogFixture.get(append(w, txn(PID, 0), TransactionCheck.VERIFY)).baseOffset());
        }
    }
}
