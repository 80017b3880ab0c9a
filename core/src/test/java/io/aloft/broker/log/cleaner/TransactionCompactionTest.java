package io.aloft.broker.log.cleaner;

import static io.aloft.broker.log.LogFixture.committedValues;
import static io.aloft.broker.log.LogFixture.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.AbortedTxn;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction of a partition with transactions (issue 16), as Kafka's cleaner: it never passes the
 * last stable offset, an aborted record never takes the place of a committed one, aborted records
 * go, and a marker goes only once its transaction has no record left, {@code delete.retention.ms}
 * after a cleaning found so (the aborted-transaction entry goes with that cleaning).
 */
class TransactionCompactionTest {
    private static final Map<String, String> COMPACT = Map.of("cleanup.policy", "compact", "segment.ms", "1",
            "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "60000");

    @TempDir
    Path dir;
    private LogFixture fx;
    private PartitionLog log;
    private final ScheduledExecutorService unused = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void setUp() throws Exception {
        fx = new LogFixture(dir);
        log = fx.open(COMPACT);
    }

    @AfterEach
    void tearDown() throws Exception {
        unused.shutdownNow();
        fx.close();
    }

    private List<RangeCleaner.Result> clean() throws Exception {
        return clean(100_000);
    }

    /** Uploads what the log cache holds, lets {@code elapseMs} pass, and cleans what needs it. */
    private List<RangeCleaner.Result> clean(long elapseMs) throws Exception {
        get(fx.store.flush());
        fx.clock.addAndGet(elapseMs);
        CleanerConfig config = CleanerConfig.fromProperties(Map.of(CleanerConfig.DEDUPE_BUFFER_SIZE_CONFIG,
                Integer.toString(1 << 20)));
        return new LogCleaner(config, () -> List.of(log), () -> true, fx.clock::get, unused).cleanNow();
    }

    private static SimpleRecord rec(String key, String value) {
        return new SimpleRecord(LogFixture.T0, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    private void plain(SimpleRecord... records) throws Exception {
        get(log.append(MemoryRecords.withRecords(Compression.NONE, records)));
    }

    private List<AbortedTxn> listedAborted() throws Exception {
        return get(log.read(log.logStartOffset(), 1 << 20, true, IsolationLevel.READ_COMMITTED)).abortedTransactions();
    }

    /** The markers left, as offset to whether a delete horizon is set. */
    private Map<Long, Boolean> markerHorizons() throws Exception {
        Map<Long, Boolean> out = new TreeMap<>();
        for (RecordBatch b : get(log.read(log.logStartOffset(), 1 << 20, true)).records().batches()) {
            if (b.isControlBatch()) {
                out.put(b.baseOffset(), b.deleteHorizonMs().isPresent());
            }
        }
        return out;
    }

    private void transactional(long pid, int seq, SimpleRecord... records) throws Exception {
        get(log.append(MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq, records)));
    }

    private List<String> readCommitted() throws Exception {
        LogReadResult r = get(log.read(log.logStartOffset(), 1 << 20, true, IsolationLevel.READ_COMMITTED));
        return committedValues(r, 0);
    }

    private List<String> readUncommittedValues() throws Exception {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : get(log.read(log.logStartOffset(), 1 << 20, true)).records().batches()) {
            if (!b.isControlBatch()) {
                for (Record r : b) {
                    out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
                }
            }
        }
        return out;
    }

    private int markers() throws Exception {
        int n = 0;
        for (RecordBatch b : get(log.read(log.logStartOffset(), 1 << 20, true)).records().batches()) {
            n += b.isControlBatch() ? 1 : 0;
        }
        return n;
    }

    /**
     * 0 a1 | 1 txn 7: a=aborted | 2 ABORT 7 | 3 txn 8: b1 | 4 COMMIT 8 | 5 b2 | 6 txn 7: e1 |
     * 7 COMMIT 7 | 8 txn 8: f1 | 9 COMMIT 8 | 10 c1. Both producers wrote again after their first
     * transaction, so neither batch 1 nor 3 is a producer's last (those are kept emptied).
     */
    private void twoProducersTwoTransactionsEach() throws Exception {
        plain(rec("a", "a1"));
        transactional(7, 0, rec("a", "aborted"));
        get(log.appendMarker(7, (short) 0, 0, false, (short) 0));
        transactional(8, 0, rec("b", "b1"));
        get(log.appendMarker(8, (short) 0, 0, true, (short) 0));
        plain(rec("b", "b2"));
        transactional(7, 1, rec("e", "e1"));
        get(log.appendMarker(7, (short) 0, 0, true, (short) 0));
        transactional(8, 1, rec("f", "f1"));
        get(log.appendMarker(8, (short) 0, 0, true, (short) 0));
        plain(rec("c", "c1"));
    }

    @Test
    void clean_removesAbortedRecords_thenTheirEntry_thenMarkersAfterDeleteRetention() throws Exception {
        twoProducersTwoTransactionsEach();
        List<String> committed = List.of("a1", "b2", "e1", "f1", "c1");
        assertEquals(List.of("a1", "b1", "b2", "e1", "f1", "c1"), readCommitted());
        assertEquals(List.of(new AbortedTxn(7, 1, 2)), listedAborted());

        // Pass 1: the aborted record and the superseded committed one go; their markers stay.
        assertEquals(1, clean().size());
        assertEquals(committed, readUncommittedValues(), "read_uncommitted no longer sees the aborted record");
        assertEquals(committed, readCommitted());
        assertEquals(Map.of(2L, false, 4L, false, 7L, false, 9L, false), markerHorizons());
        assertEquals(List.of(new AbortedTxn(7, 1, 2)), listedAborted(), "listed until a cleaning finds it empty");

        // Pass 2: markers 2 and 4 have nothing of theirs left: a horizon each; the entry goes.
        plain(rec("g", "g1"));
        assertEquals(1, clean().size());
        assertEquals(Map.of(2L, true, 4L, true, 7L, false, 9L, false), markerHorizons());
        assertEquals(List.of(), listedAborted());

        // Pass 3, before the horizon (delete.retention.ms is 60 s): they stay.
        plain(rec("h", "h1"));
        assertEquals(1, clean(10_000).size());
        assertEquals(Map.of(2L, true, 4L, true, 7L, false, 9L, false), markerHorizons());

        // Pass 4, past it: they go; markers of transactions with records left stay.
        plain(rec("i", "i1"));
        assertEquals(1, clean(60_000).size());
        assertEquals(Map.of(7L, false, 9L, false), markerHorizons());
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1", "g1", "h1", "i1"), readCommitted());
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1", "g1", "h1", "i1"), readUncommittedValues());
        assertEquals(14, log.highWatermark(), "offsets never move");
    }

    @Test
    void clean_restartBetweenPasses_keepsTheEntryGoneAndTheHorizons() throws Exception {
        twoProducersTwoTransactionsEach();
        clean();
        plain(rec("g", "g1"));
        clean();
        assertEquals(List.of(), listedAborted());

        get(log.close());
        log = fx.open(COMPACT); // a new owner loads the checkpointed state

        assertEquals(List.of(), listedAborted(), "the forgotten entry stays forgotten");
        assertEquals(Map.of(2L, true, 4L, true, 7L, false, 9L, false), markerHorizons());
        plain(rec("h", "h1"));
        clean();
        assertEquals(Map.of(7L, false, 9L, false), markerHorizons());
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1", "g1", "h1"), readCommitted());
    }

    /**
     * A crash right after the metadata commit of the cleaning that removes the aborted records
     * (the checkpoint after it never written): the reopened log reads the compacted data, still
     * lists the aborted transaction (harmless: nothing of it is left), and the next cleanings
     * forget it and drop its marker as if nothing had happened.
     */
    @Test
    void crashAfterTheMetadataCommit_reopenedLogStaysCorrect_andLaterCleaningsFinishTheJob() throws Exception {
        get(log.close());
        fx.stopStore();
        java.util.concurrent.atomic.AtomicBoolean loseTheReply = new java.util.concurrent.atomic.AtomicBoolean();
        fx.metadataView = real -> LogCleanerTest.losingReplacementReplies(real, loseTheReply);
        fx.startStore();
        log = fx.open(COMPACT);
        twoProducersTwoTransactionsEach();
        loseTheReply.set(true);

        assertTrue(clean().isEmpty(), "the cleaning saw its commit fail");
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1"), readUncommittedValues(), "yet the new data is in force");
        fx.crashed(log);
        fx.stopStore();
        loseTheReply.set(false);
        fx.startStore();
        log = fx.open(COMPACT);

        assertEquals(List.of("a1", "b2", "e1", "f1", "c1"), readUncommittedValues());
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1"), readCommitted());
        assertEquals(List.of(new AbortedTxn(7, 1, 2)), listedAborted());
        plain(rec("g", "g1"));
        clean();
        assertEquals(List.of(), listedAborted());
        plain(rec("h", "h1"));
        clean();
        assertEquals(Map.of(7L, false, 9L, false), markerHorizons());
        assertEquals(List.of("a1", "b2", "e1", "f1", "c1", "g1", "h1"), readCommitted());
    }

    @Test
    void clean_abortedBatchThatIsItsProducersLast_keptEmptied_withItsMarkerAndEntry() throws Exception {
        plain(rec("a", "a1"));                                       // 0
        transactional(7, 0, rec("a", "aborted"), rec("z", "z"));    // 1-2, producer 7's last batch
        get(log.appendMarker(7, (short) 0, 0, false, (short) 0));    // 3
        plain(rec("c", "c1"));                                       // 4

        clean();
        plain(rec("d", "d1"));
        clean();

        assertEquals(List.of("a1", "c1", "d1"), readUncommittedValues());
        assertEquals(List.of("a1", "c1", "d1"), readCommitted());
        assertEquals(Map.of(3L, false), markerHorizons(), "its transaction still has a (now empty) batch");
        assertEquals(List.of(new AbortedTxn(7, 1, 3)), listedAborted());
        RecordBatch kept = get(log.read(1, 1 << 20, true)).records().batches().iterator().next();
        assertEquals(List.of(1L, 2L, 7L, 0L), List.of(kept.baseOffset(), kept.lastOffset(), kept.producerId(),
                (long) kept.countOrNull()), "the producer's sequence is still on record");
    }

    @Test
    void clean_abortedRecordNeverSupersedesACommittedOne_markersStay() throws Exception {
        plain(rec("a", "a1"), rec("b", "b1"));                       // 0-1
        transactional(7, 0, rec("a", "aborted"));                    // 2
        get(log.appendMarker(7, (short) 0, 0, false, (short) 0));    // 3
        transactional(8, 0, rec("b", "b2"));                         // 4
        get(log.appendMarker(8, (short) 0, 0, true, (short) 0));     // 5
        plain(rec("c", "c1"));                                       // 6
        assertEquals(List.of("a1", "b1", "b2", "c1"), readCommitted());

        List<RangeCleaner.Result> done = clean();

        assertEquals(1, done.size());
        assertEquals(7, done.get(0).end());
        assertEquals(List.of("a1", "b2", "c1"), readCommitted(), "b1 superseded by the committed b2; a1 stays");
        assertEquals(2, markers());
        assertFalse(readUncommittedValues().contains("b1"));
    }

    @Test
    void clean_stopsAtTheLastStableOffset_thenCleansTheTransactionOnceDecided() throws Exception {
        plain(rec("k0", "v0"), rec("k1", "v1"));                     // 0-1
        transactional(9, 0, rec("k0", "t0"));                        // 2, open
        plain(rec("k0", "v2"), rec("k1", "v3"));                     // 3-4
        assertEquals(2, log.lastStableOffset());

        for (RangeCleaner.Result r : clean()) {
            assertTrue(r.end() <= 2, "cleaned up to " + r.end() + ", past the LSO");
        }
        assertEquals(List.of("v0", "v1", "t0", "v2", "v3"), readUncommittedValues(), "nothing was dropped");

        get(log.appendMarker(9, (short) 0, 0, true, (short) 0));     // 5
        List<RangeCleaner.Result> done = clean();
        assertEquals(6, done.get(done.size() - 1).end());
        assertEquals(List.of("v2", "v3"), readCommitted());
        assertEquals(1, markers());
    }
}
