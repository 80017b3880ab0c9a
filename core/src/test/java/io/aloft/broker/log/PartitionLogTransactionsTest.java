package io.aloft.broker.log;

import static io.aloft.broker.log.LogFixture.assertFails;
import static io.aloft.broker.log.LogFixture.batch;
import static io.aloft.broker.log.LogFixture.committedValues;
import static io.aloft.broker.log.LogFixture.get;
import static io.aloft.broker.log.LogFixture.idempotent;
import static io.aloft.broker.log.LogFixture.transactional;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * The partition side of transactions (issue 16): transactional batches open a transaction,
 * markers end it, the last stable offset (LSO) holds read_committed reads at the oldest open
 * transaction, aborted transactions are listed with the batches they overlap, and all of it
 * survives a new owner. Markers here come straight from {@link PartitionLog#appendMarker}, as the
 * transaction coordinator will send them.
 */
class PartitionLogTransactionsTest extends WithLogFixture {
    private static final IsolationLevel COMMITTED = IsolationLevel.READ_COMMITTED;
    private static final IsolationLevel UNCOMMITTED = IsolationLevel.READ_UNCOMMITTED;
    private static final short TV0 = 0;
    private static final short TV2 = 2;

    private static AppendResult commit(PartitionLog log, long pid, short epoch) throws Exception {
        return get(log.appendMarker(pid, epoch, 0, true, TV0));
    }

    private static AppendResult abort(PartitionLog log, long pid, short epoch) throws Exception {
        return get(log.appendMarker(pid, epoch, 0, false, TV0));
    }

    private static LogReadResult readCommitted(PartitionLog log, long from) throws Exception {
        return get(log.read(from, 1 << 20, true, COMMITTED));
    }

    private static List<Long> baseOffsets(LogReadResult r) {
        List<Long> out = new ArrayList<>();
        r.records().batches().forEach(b -> out.add(b.baseOffset()));
        return out;
    }

    @Test
    void commitMarker_readCommittedSeesTheTransactionOnlyAfterIt_lsoHeldAtItsFirstOffset() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(2)));                                   // 0-1
        get(log.append(transactional(7, (short) 0, 0, 3)));          // 2-4
        get(log.append(transactional(7, (short) 0, 3, 2)));          // 5-6
        get(log.append(batch(1)));                                   // 7
        assertEquals(8, log.highWatermark());
        assertEquals(2, log.lastStableOffset());

        LogReadResult before = readCommitted(log, 0);
        assertEquals(List.of(0L), baseOffsets(before), "nothing at or above the LSO");
        assertEquals(2, before.lastStableOffset());
        assertEquals(8, before.highWatermark());
        assertEquals(List.of(), before.abortedTransactions());
        assertEquals(0, readCommitted(log, 2).batches().sizeInBytes());
        assertNotNull(log.nothingNewAt(2, COMMITTED));
        assertNotNull(log.nothingNewAt(5, COMMITTED), "between the LSO and the high watermark: nothing either");
        assertNull(log.nothingNewAt(2, UNCOMMITTED));
        LogReadResult uncommitted = get(log.read(0, 1 << 20, true));
        assertEquals(List.of(0L, 2L, 5L, 7L), baseOffsets(uncommitted), "read_uncommitted reads as before");
        assertNull(uncommitted.abortedTransactions());
        assertEquals(2, uncommitted.lastStableOffset());

        AppendResult marker = commit(log, 7, (short) 0);
        assertEquals(new AppendResult(8, 8, -1, 0), marker);
        assertEquals(9, log.highWatermark());
        assertEquals(9, log.lastStableOffset());
        LogReadResult after = readCommitted(log, 0);
        assertEquals(List.of(0L, 2L, 5L, 7L, 8L), baseOffsets(after));
        assertEquals(List.of(), after.abortedTransactions());
        assertEquals(List.of("v0", "v1", "p7-0", "p7-1", "p7-2", "p7-3", "p7-4", "v0"), committedValues(after, 0));

        RecordBatch stored = null;
        for (RecordBatch b : after.records().batches()) {
            stored = b; // the last one: the marker
        }
        assertTrue(stored.isControlBatch() && stored.isTransactional());
        assertEquals(log.leaderEpoch(), stored.partitionLeaderEpoch(), "markers carry the leader epoch");
        EndTransactionMarker m = EndTransactionMarker.deserialize(stored.iterator().next());
        assertEquals(ControlRecordType.COMMIT, m.controlType());
    }

    @Test
    void abortMarker_listsTheAbortedTransactionForTheRange_consumerDropsItsRecords() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(7, (short) 0, 0, 2)));          // 0-1
        get(log.append(batch(1)));                                   // 2
        get(log.append(transactional(7, (short) 0, 2, 1)));          // 3
        assertEquals(new AppendResult(4, 4, -1, 0), abort(log, 7, (short) 0));
        get(log.append(batch(1)));                                   // 5
        assertEquals(6, log.lastStableOffset());

        LogReadResult all = readCommitted(log, 0);
        assertEquals(List.of(new AbortedTxn(7, 0, 4)), all.abortedTransactions());
        assertEquals(List.of("v0", "v0"), committedValues(all, 0));
        assertEquals(List.of(new AbortedTxn(7, 0, 4)), readCommitted(log, 2).abortedTransactions(),
                "the marker is at or above the fetch offset");
        assertEquals(List.of(new AbortedTxn(7, 0, 4)), readCommitted(log, 4).abortedTransactions());
        assertEquals(List.of(), readCommitted(log, 5).abortedTransactions(), "past the marker: not listed");
        // A read of the first batch only lists only what overlaps it.
        LogReadResult first = get(log.read(0, 1, true, COMMITTED));
        assertEquals(List.of(0L), baseOffsets(first));
        assertEquals(List.of(new AbortedTxn(7, 0, 4)), first.abortedTransactions());
    }

    @Test
    void interleavedProducers_lsoFollowsTheOldestOpenTransaction() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(1, (short) 0, 0, 1)));          // 0
        get(log.append(transactional(2, (short) 0, 0, 1)));          // 1
        get(log.append(transactional(1, (short) 0, 1, 1)));          // 2
        assertEquals(0, log.lastStableOffset());
        commit(log, 2, (short) 0);                                   // 3
        assertEquals(0, log.lastStableOffset(), "producer 1's transaction is still open");
        assertEquals(0, readCommitted(log, 0).batches().sizeInBytes());
        abort(log, 1, (short) 0);                                    // 4
        assertEquals(5, log.lastStableOffset());

        LogReadResult all = readCommitted(log, 0);
        assertEquals(List.of(new AbortedTxn(1, 0, 4)), all.abortedTransactions());
        assertEquals(List.of("p2-0"), committedValues(all, 0));

        get(log.append(transactional(2, (short) 0, 1, 1)));          // 5
        get(log.append(batch(1)));                                   // 6
        assertEquals(5, log.lastStableOffset());
        assertEquals(0, readCommitted(log, 5).batches().sizeInBytes());
        commit(log, 2, (short) 0);                                   // 7
        assertEquals(8, log.lastStableOffset());
        assertEquals(List.of("p2-1", "v0"), committedValues(readCommitted(log, 5), 5));
    }

    @Test
    void nonTransactionalBatchWithinATransaction_isInvalidTxnState() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(7, (short) 0, 0, 1)));
        assertFails(Errors.INVALID_TXN_STATE, log.append(idempotent(7, (short) 0, 1, 1)));
        assertEquals(1, log.highWatermark(), "nothing appended");
        commit(log, 7, (short) 0);
        assertEquals(new AppendResult(2, 2, -1, 0), get(log.append(idempotent(7, (short) 0, 1, 1))),
                "after the marker, a plain idempotent batch continues the sequence");
    }

    @Test
    void marker_staleEpochs_areRefusedWithKafkasCodes_andAppendNothing() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(7, (short) 3, 0, 1)));          // 0
        assertFails(Errors.INVALID_PRODUCER_EPOCH, log.appendMarker(7, (short) 2, 0, true, TV0));
        assertEquals(new AppendResult(1, 1, -1, 0), get(log.appendMarker(7, (short) 3, 5, true, TV0)));
        get(log.append(transactional(7, (short) 3, 1, 1)));          // 2
        assertFails(Errors.TRANSACTION_COORDINATOR_FENCED, log.appendMarker(7, (short) 3, 4, false, TV0));
        assertEquals(3, log.highWatermark());
        assertEquals(2, log.lastStableOffset(), "the transaction is still open");
        assertEquals(new AppendResult(3, 3, -1, 0), get(log.appendMarker(7, (short) 3, 5, false, TV0)));

        // Transaction version 2: the coordinator bumps the epoch with every marker.
        get(log.append(transactional(8, (short) 1, 0, 1)));          // 4
        assertFails(Errors.INVALID_PRODUCER_EPOCH, log.appendMarker(8, (short) 1, 0, true, TV2));
        assertEquals(new AppendResult(5, 5, -1, 0), get(log.appendMarker(8, (short) 2, 0, true, TV2)));
        assertEquals(new AppendResult(6, 6, -1, 0), get(log.appendMarker(8, (short) 2, 0, true, TV2)),
                "a retry of the marker that ended the last transaction is written again");
        assertEquals(new AppendResult(7, 7, -1, 0), get(log.append(transactional(8, (short) 2, 0, 1))),
                "the bumped epoch starts at sequence 0");
        assertFails(Errors.INVALID_PRODUCER_EPOCH, log.appendMarker(8, (short) 2, 0, true, TV2));

        // A producer without a transaction here: its marker is written too, and changes no LSO.
        assertEquals(new AppendResult(8, 8, -1, 0), get(log.appendMarker(99, (short) 0, 0, false, TV0)));
        assertEquals(7, log.lastStableOffset());
        assertEquals(List.of(), readCommitted(log, 8).abortedTransactions());
    }

    @Test
    void activeProducers_showTheOpenTransactionAndTheLastCoordinatorEpoch() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(1)));
        get(log.append(transactional(7, (short) 0, 0, 2)));          // 1-2
        assertEquals(List.of(new ActiveProducer(7, (short) 0, 1, LogFixture.T0, -1, 1)), log.activeProducers());
        get(log.appendMarker(7, (short) 0, 3, true, TV0));
        assertEquals(List.of(new ActiveProducer(7, (short) 0, 1, fx.clock.get(), 3, -1)), log.activeProducers());
    }

    @Test
    void readCommittedWaitAtTheLso_ignoresOtherAppends_isWokenByTheCommitMarker() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(7, (short) 0, 0, 1)));          // 0
        get(log.append(batch(1)));                                   // 1
        AtomicInteger woken = new AtomicInteger();
        Runnable wake = woken::incrementAndGet;
        assertTrue(log.wakeOnData(0, COMMITTED, wake), "the LSO is at 0: there is something to wait for");
        CompletableFuture<Void> awaiting = log.awaitData(0, COMMITTED);
        assertTrue(log.awaitData(0, UNCOMMITTED).isDone(), "read_uncommitted has data past 0");
        get(log.append(batch(1)));                                   // 2
        assertEquals(0, woken.get(), "the high watermark moved, the LSO did not");
        assertFalse(awaiting.isDone());
        commit(log, 7, (short) 0);                                   // 3
        assertEquals(1, woken.get());
        get(awaiting);
        assertEquals(0, log.waiting());
        assertNull(log.nothingNewAt(0, COMMITTED));
        assertEquals(4, readCommitted(log, 0).lastStableOffset());
    }

    @Test
    void producerWithAnOpenTransaction_doesNotExpire() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.PRODUCER_ID_EXPIRATION_MS_CONFIG, "1000"));
        get(log.append(transactional(7, (short) 0, 0, 1)));
        get(log.append(idempotent(8, (short) 0, 0, 1)));
        fx.clock.addAndGet(10_000);
        get(log.checkpoint()); // expires producers
        assertEquals(Set.of(7L), Set.copyOf(log.activeProducers().stream().map(ActiveProducer::producerId).toList()));
        assertEquals(0, log.lastStableOffset());
    }

    @Test
    void deleteRecords_pastAnOpenTransactionAndAnAbortedOne_keepsLsoAndAbortedIndexWithTheLogStart()
            throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(1, (short) 0, 0, 2)));          // 0-1
        abort(log, 1, (short) 0);                                    // 2
        get(log.append(transactional(2, (short) 0, 0, 1)));          // 3
        get(log.append(batch(1)));                                   // 4
        get(log.append(batch(1)));                                   // 5
        assertEquals(3, log.lastStableOffset());

        assertEquals(5L, get(log.deleteRecordsBefore(5)));
        assertEquals(5, log.lastStableOffset(), "never below the log start, as in Kafka");
        assertEquals(0, readCommitted(log, 5).batches().sizeInBytes(), "the transaction is still open");
        commit(log, 2, (short) 0);                                   // 6
        assertEquals(7, log.lastStableOffset());
        LogReadResult r = readCommitted(log, 5);
        assertEquals(List.of(), r.abortedTransactions(), "the aborted transaction below the log start is gone");
        assertEquals(List.of("v0"), committedValues(r, 5));

        PartitionLog reopened = reopen(log, true);
        assertEquals(7, reopened.lastStableOffset());
        assertEquals(List.of(), reopened.txns().aborted());
    }

    /**
     * Partial checkpoints hold only the aborted transactions added since the previous one (version
     * 5); a log reopened from a full checkpoint, partial ones after it and records after those has
     * them all, less those the log start passed.
     */
    @Test
    void reopen_fromPartialCheckpoints_hasEveryAbortedTransaction_lessThoseBelowTheLogStart() throws Exception {
        PartitionLog log = fx.open();
        List<AbortedTxn> expected = new ArrayList<>();
        for (int pid = 1; pid <= 6; pid++) {
            long first = log.highWatermark();
            get(log.append(transactional(pid, (short) 0, 0, 1)));
            abort(log, pid, (short) 0);
            expected.add(new AbortedTxn(pid, first, first + 1));
            if (pid == 3) {
                assertEquals(4L, get(log.deleteRecordsBefore(4)));     // passes the first two
                expected.subList(0, 2).clear();
            }
            if (pid < 6) {
                get(log.checkpoint());
            }
        }
        assertEquals(expected, log.txns().aborted());

        PartitionLog reopened = reopen(log, false);

        assertEquals(expected, reopened.txns().aborted());
        assertEquals(expected, readCommitted(reopened, 4).abortedTransactions());
    }

    /**
     * Retention, like DeleteRecords (and as in Kafka, where it is bounded by the high watermark
     * only), may delete an open transaction's first records: the LSO follows the log start and the
     * transaction stays open until its marker; the aborted transaction passed is forgotten.
     */
    @Test
    void retention_pastAnOpenTransaction_lsoFollowsTheLogStart() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.RETENTION_MS_CONFIG, "1000",
                LogConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(4 << 20)));
        get(log.append(transactional(1, (short) 0, 0, 1)));          // 0
        abort(log, 1, (short) 0);                                    // 1
        get(log.append(transactional(2, (short) 0, 0, 1)));          // 2, open
        // 3, old (T0), and large enough to close the time-index entry, retention's unit.
        get(log.append(MemoryRecords.withRecords(Compression.NONE, new org.apache.kafka.common.record.internal
                .SimpleRecord(LogFixture.T0, new byte[LogConfig.MIN_INDEX_ENTRY_BYTES]))));
        fx.clock.set(LogFixture.T0 + 10_000);
        get(log.append(MemoryRecords.withRecords(Compression.NONE,
                LogFixture.rec(LogFixture.T0 + 10_000, "young"))));  // 4, kept
        assertEquals(2, log.lastStableOffset());

        long start = get(log.applyRetention(fx.clock.get()));

        assertEquals(4, start);
        assertEquals(4, log.lastStableOffset(), "never below the log start");
        assertEquals(List.of(), log.txns().aborted());
        assertEquals(0, readCommitted(log, 4).records().sizeInBytes(), "the transaction is still open");
        commit(log, 2, (short) 0);                                   // 5
        assertEquals(6, log.lastStableOffset());
        assertEquals(List.of("young"), committedValues(readCommitted(log, 4), 4));
    }

    /** After a clean close (state from the checkpoint) or not (replayed from the records past a checkpoint). */
    private PartitionLog reopen(PartitionLog old, boolean close) throws Exception {
        if (close) {
            get(old.close());
        } else {
            get(fx.store.flush());
        }
        return fx.open();
    }

    /**
     * pid 1: 0-1 aborted at 2; pid 2: 3 committed at 4 (coordinator epoch 4); a checkpoint if
     * {@code checkpoint}; pid 3: 5 aborted at 7; pid 4: 6, 8 open; 9 plain.
     */
    private static void transactionsForRestart(PartitionLog log, boolean checkpoint) throws Exception {
        get(log.append(transactional(1, (short) 0, 0, 2)));          // 0-1
        abort(log, 1, (short) 0);                                    // 2
        get(log.append(transactional(2, (short) 0, 0, 1)));          // 3
        get(log.appendMarker(2, (short) 0, 4, true, TV0));           // 4
        if (checkpoint) {
            get(log.checkpoint());
        }
        get(log.append(transactional(3, (short) 0, 0, 1)));          // 5
        get(log.append(transactional(4, (short) 0, 0, 1)));          // 6
        abort(log, 3, (short) 0);                                    // 7
        get(log.append(transactional(4, (short) 0, 1, 1)));          // 8
        get(log.append(batch(1)));                                   // 9
    }

    private void restartRebuildsTheSameState(boolean close, boolean checkpoint) throws Exception {
        PartitionLog log = fx.open();
        transactionsForRestart(log, checkpoint);
        assertEquals(6, log.lastStableOffset());
        List<AbortedTxn> aborted = List.of(new AbortedTxn(1, 0, 2), new AbortedTxn(3, 5, 7));
        assertEquals(aborted, log.txns().aborted());
        LogReadResult before = readCommitted(log, 0);
        Set<ActiveProducer> producers = Set.copyOf(log.activeProducers());

        PartitionLog reopened = reopen(log, close);
        assertEquals(6, reopened.lastStableOffset());
        assertEquals(10, reopened.highWatermark());
        assertEquals(aborted, reopened.txns().aborted());
        assertEquals(producers, Set.copyOf(reopened.activeProducers()));
        LogReadResult after = readCommitted(reopened, 0);
        assertEquals(baseOffsets(before), baseOffsets(after));
        assertEquals(before.abortedTransactions(), after.abortedTransactions());
        assertEquals(List.of("p2-0"), committedValues(after, 0));
        assertFails(Errors.TRANSACTION_COORDINATOR_FENCED, reopened.appendMarker(2, (short) 0, 3, true, TV0));

        commit(reopened, 4, (short) 0);                              // 10
        assertEquals(11, reopened.lastStableOffset());
        assertEquals(List.of("p2-0", "p4-0", "p4-1", "v0"), committedValues(readCommitted(reopened, 0), 0));
    }

    @Test
    void reopen_afterClose_rebuildsLsoAbortedIndexAndProducersFromTheCheckpoint() throws Exception {
        restartRebuildsTheSameState(true, true);
    }

    @Test
    void reopen_withoutClose_rebuildsThemFromACheckpointAndTheRecordsAfterIt() throws Exception {
        restartRebuildsTheSameState(false, true);
    }

    @Test
    void reopen_withoutAnyCheckpoint_rebuildsThemByReplayAlone() throws Exception {
        restartRebuildsTheSameState(false, false);
    }

    @Test
    void reopen_afterStoreRestart_rebuildsTheSameState() throws Exception {
        PartitionLog log = fx.open();
        transactionsForRestart(log, false);
        get(log.close());
        fx.stopStore();
        fx.startStore();
        PartitionLog reopened = fx.open();
        assertEquals(6, reopened.lastStableOffset());
        assertEquals(List.of(new AbortedTxn(1, 0, 2), new AbortedTxn(3, 5, 7)), reopened.txns().aborted());
    }

    /**
     * Transaction version 2 bumps the producer's epoch with every marker: the new epoch's first batch
     * must be sequence 0, as in Kafka, so a later batch of a producer whose first one was refused
     * (and will be retried) is not taken before it.
     */
    @Test
    void markerBumpsTheEpoch_nextBatchMustStartAtSequence0() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(7, (short) 0, 0, 2)));
        get(log.appendMarker(7, (short) 1, 0, true, TV2));
        assertFails(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, log.append(transactional(7, (short) 1, 1, 1)));
        get(log.append(transactional(7, (short) 1, 0, 1)));
        get(log.append(transactional(7, (short) 1, 1, 1)));
    }

    /**
     * A coordinator's own transactional batches of a producer (the group coordinator's
     * TxnOffsetCommit records) carry no sequence of the producer's: the same sequence twice is two
     * appends, not a duplicate, and a sequence out of order is no error; they open the producer's
     * transaction as its own batches do, and an older epoch is still refused.
     */
    @Test
    void appendAsCoordinator_noSequenceOrDuplicateChecks_opensTheTransaction_olderEpochRefused() throws Exception {
        PartitionLog log = fx.open();
        AppendResult first = get(log.appendAsCoordinator(transactional(9, (short) 3, 0, 1), null));
        AppendResult second = get(log.appendAsCoordinator(transactional(9, (short) 3, 0, 1), null));
        AppendResult third = get(log.appendAsCoordinator(transactional(9, (short) 3, 7, 1), null));
        assertEquals(List.of(0L, 1L, 2L), List.of(first.baseOffset(), second.baseOffset(), third.baseOffset()));
        assertEquals(0, log.lastStableOffset()); // the transaction open since offset 0 holds it
        assertFails(Errors.INVALID_PRODUCER_EPOCH, log.appendAsCoordinator(transactional(9, (short) 2, 0, 1), null));
        // The producer's own batch at a remembered sequence is a duplicate: the client path still checks.
        assertEquals(third.baseOffset(), get(log.append(transactional(9, (short) 3, 7, 1))).baseOffset());
        commit(log, 9, (short) 3);
        assertEquals(4, log.lastStableOffset());
    }
}
