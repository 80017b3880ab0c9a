package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * answer with its producer's later batches behind it, so that producer's order holds, while other
 * producers' batches go on; the coordinator is asked once per transaction and partition (later
 * batches find it open in the log), and once for all the partitions of one produce request
 * ({@link VerificationBatch}); its answer becomes the produce's code as Kafka maps it; and a
 * transaction that ends while its first batch is being checked is not reopened by that batch.
 */
class PartitionWritersVerificationTest {
    private static final long PID = 11;
    private static final short EPOCH = 0;

    @TempDir
    Path dir;

    /**
     * A coordinator whose answers the test gives, one future per question ({@link #asked}, answered
     * for every partition of it by {@link #answers}).
     */
    private static final class FakeCoordinator implements TransactionVerifier {
        final List<CompletableFuture<Errors>> asked = new CopyOnWriteArrayList<>();
        final List<List<TopicPartition>> partitions = new CopyOnWriteArrayList<>();
        final List<TransactionCheck> checks = new CopyOnWriteArrayList<>();
        /** Asks an add refused with CONCURRENT_TRANSACTIONS once more, as the broker's verifier would. */
        boolean retryConcurrent;

        @Override
        public CompletableFuture<Errors> retryConcurrent(CompletableFuture<Errors> answer, String transactionalId,
                TransactionCheck check, java.util.function.Supplier<CompletableFuture<Errors>> askAgain) {
            return !retryConcurrent || check.verifyOnly() ? answer : answer.thenCompose(e ->
                    e == Errors.CONCURRENT_TRANSACTIONS ? askAgain.get() : CompletableFuture.completedFuture(e));
        }

        @Override
        public CompletableFuture<Map<TopicPartition, Errors>> checkAll(String transactionalId, long producerId,
                short producerEpoch, Collection<TopicPartition> tps, TransactionCheck check) {
            CompletableFuture<Errors> answer = new CompletableFuture<>();
            asked.add(answer);
            partitions.add(List.copyOf(tps));
            checks.add(check);
            return answer.thenApply(e -> {
                Map<TopicPartition, Errors> all = new HashMap<>();
                tps.forEach(tp -> all.put(tp, e));
                return all;
            });
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
        return w.append(LogFixture.TP, records, Long.MAX_VALUE, "tx", check, null);
    }

    @Test
    void firstBatchWaitsForTheCoordinator_producersLaterBatchesStayBehindIt_askedOncePerTransaction()
            throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> first = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> second = append(w, txn(PID, 1), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> third = append(w, txn(PID, 2), TransactionCheck.ADD_PARTITION);
            assertEquals(1, coordinator.asked.size());
            assertFalse(first.isDone() || second.isDone() || third.isDone(), "the producer's batches wait for it");
            assertEquals(0, log.highWatermark());
            coordinator.asked.get(0).complete(Errors.NONE);
            assertEquals(0, LogFixture.get(first).baseOffset());
            assertEquals(1, LogFixture.get(second).baseOffset(), "in the producer's order");
            assertEquals(2, LogFixture.get(third).baseOffset());
            assertEquals(1, coordinator.asked.size(), "the open transaction needs no second check");
            assertEquals(List.of(TransactionCheck.ADD_PARTITION), coordinator.checks);
            // Ended: the next transaction's first batch is checked again.
            LogFixture.get(log.appendMarker(PID, EPOCH, 0, true, (short) 1));
            CompletableFuture<AppendResult> next = append(w, txn(PID, 3), TransactionCheck.VERIFY);
            assertEquals(2, coordinator.asked.size());
            coordinator.asked.get(1).complete(Errors.NONE);
            assertEquals(4, LogFixture.get(next).baseOffset());
            assertEquals(0, w.writerCount(), "nothing held or queued: no writer kept");
        }
    }

    @Test
    void otherProducersBatches_notHeldBehindAPendingCheck() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> checked = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> idempotent = append(w, plain(PID + 1, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> sameProducer = append(w, txn(PID, 1), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> otherTxn = append(w, txn(PID + 2, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> marker = w.write(LogFixture.TP,
                    l -> l.appendMarker(PID + 3, EPOCH, 0, false, (short) 1));
            // The idempotent batch and the marker are appended while PID's check is pending; PID + 2 has its
            // own check pending, asked without waiting for PID's.
            assertEquals(0, LogFixture.get(idempotent).baseOffset());
            assertEquals(1, LogFixture.get(marker).baseOffset());
            assertEquals(2, coordinator.asked.size());
            assertFalse(checked.isDone() || sameProducer.isDone() || otherTxn.isDone());
            coordinator.asked.get(1).complete(Errors.NONE); // PID + 2's answer comes first
            assertEquals(2, LogFixture.get(otherTxn).baseOffset());
            assertFalse(checked.isDone() || sameProducer.isDone(), "PID's batches still wait for their answer");
            coordinator.asked.get(0).complete(Errors.NONE);
            assertEquals(3, LogFixture.get(checked).baseOffset());
            assertEquals(4, LogFixture.get(sameProducer).baseOffset());
        }
    }

    /**
     * An add refused with CONCURRENT_TRANSACTIONS (the producer's previous transaction completing)
     * that the verifier asks again: the batch, and the producer's batch behind it, wait for the
     * second answer and are appended with it, although the previous transaction's marker (at the
     * batch's epoch, transaction version 2) was written in between.
     */
    @Test
    void concurrentTransactions_verifierAsksAgain_batchAppendedWithTheSecondAnswer() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            coordinator.retryConcurrent = true;
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> first = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> second = append(w, txn(PID, 1), TransactionCheck.ADD_PARTITION);
            coordinator.asked.get(0).complete(Errors.CONCURRENT_TRANSACTIONS);
            assertEquals(2, coordinator.asked.size(), "asked again");
            assertFalse(first.isDone() || second.isDone());
            LogFixture.get(log.appendMarker(PID, EPOCH, 0, true, (short) 2)); // the previous transaction's
            coordinator.asked.get(1).complete(Errors.NONE);
            assertEquals(1, LogFixture.get(first).baseOffset());
            assertEquals(2, LogFixture.get(second).baseOffset());
        }
    }

    @Test
    void refusedFirstBatch_producersBatchBehindItIsNotAppendedAhead() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = writers(log, coordinator);
            CompletableFuture<AppendResult> first = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            CompletableFuture<AppendResult> second = append(w, txn(PID, 1), TransactionCheck.ADD_PARTITION);
            coordinator.asked.get(0).complete(Errors.CONCURRENT_TRANSACTIONS);
            LogFixture.assertFails(Errors.CONCURRENT_TRANSACTIONS, first);
            // The producer the log does not know yet: its next batch must wait for the refused one's retry.
            LogFixture.assertFails(Errors.NOT_LEADER_OR_FOLLOWER, second);
            assertEquals(0, log.highWatermark());
            CompletableFuture<AppendResult> retry = append(w, txn(PID, 0), TransactionCheck.ADD_PARTITION);
            coordinator.asked.get(coordinator.asked.size() - 1).complete(Errors.NONE);
            assertEquals(0, LogFixture.get(retry).baseOffset());
        }
    }

    @Test
    void partitionsOfOneRequest_askedTogetherWhenTheBatchCloses() throws Exception {
        try (LogFixture a = new LogFixture(dir.resolve("a")); LogFixture b = new LogFixture(dir.resolve("b"));
                LogFixture c = new LogFixture(dir.resolve("c"))) {
            Map<TopicPartition, PartitionLog> logs = Map.of(new TopicPartition("t", 0), a.open(),
                    new TopicPartition("t", 1), b.open(), new TopicPartition("u", 0), c.open());
            FakeCoordinator coordinator = new FakeCoordinator();
            PartitionWriters w = new PartitionWriters(tp -> CompletableFuture.completedFuture(logs.get(tp)),
                    topic -> null);
            w.verifyTransactionsWith(coordinator);
            List<CompletableFuture<AppendResult>> appends = new ArrayList<>();
            try (VerificationBatch batch = new VerificationBatch()) {
                for (TopicPartition tp : logs.keySet()) {
                    appends.add(w.append(tp, txn(PID, 0), Long.MAX_VALUE, "tx", TransactionCheck.ADD_PARTITION, batch));
                }
                assertEquals(0, coordinator.asked.size(), "asked only once the request's partitions are all queued");
            }
            assertEquals(1, coordinator.asked.size(), "one question for the request's three partitions");
            assertEquals(Set.copyOf(logs.keySet()), Set.copyOf(coordinator.partitions.get(0)));
            coordinator.asked.get(0).complete(Errors.NONE);
            for (CompletableFuture<AppendResult> append : appends) {
                assertEquals(0, LogFixture.get(append).baseOffset());
            }
            // A check that starts after its request's batch was sent asks on its own.
            LogFixture.get(logs.get(new TopicPartition("t", 0)).appendMarker(PID, EPOCH, 0, true, (short) 1));
            VerificationBatch sent = new VerificationBatch();
            sent.close();
            CompletableFuture<AppendResult> late = w.append(new TopicPartition("t", 0), txn(PID, 1), Long.MAX_VALUE,
                    "tx", TransactionCheck.ADD_PARTITION, sent);
            assertEquals(2, coordinator.asked.size());
            coordinator.asked.get(1).complete(Errors.NONE);
            assertEquals(2, LogFixture.get(late).baseOffset());
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
                // Kafka 4.3.1 answers an add's CONCURRENT_TRANSACTIONS as it is (after retrying it), a verify's as NER.
                new Case(Errors.CONCURRENT_TRANSACTIONS, TransactionCheck.ADD_PARTITION,
                        Errors.CONCURRENT_TRANSACTIONS),
                new Case(Errors.CONCURRENT_TRANSACTIONS, TransactionCheck.VERIFY, Errors.NOT_ENOUGH_REPLICAS),
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
