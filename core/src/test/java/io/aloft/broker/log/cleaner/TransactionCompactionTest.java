package io.aloft.broker.log.cleaner;

import static io.aloft.broker.log.LogFixture.committedValues;
import static io.aloft.broker.log.LogFixture.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Compaction of a partition with transactions (issue 16): it never passes the last stable offset,
 * an aborted record never takes the place of a committed one, and markers stay.
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
        get(fx.store.flush());
        fx.clock.addAndGet(100_000);
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
