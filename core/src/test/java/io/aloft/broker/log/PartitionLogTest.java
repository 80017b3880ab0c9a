package io.aloft.broker.log;

import static io.aloft.broker.log.LogFixture.T0;
import static io.aloft.broker.log.LogFixture.assertFails;
import static io.aloft.broker.log.LogFixture.batch;
import static io.aloft.broker.log.LogFixture.bytes;
import static io.aloft.broker.log.LogFixture.get;
import static io.aloft.broker.log.LogFixture.idempotent;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Appends, reads, validation, idempotence and waiting on one partition log over real streams. */
class PartitionLogTest extends WithLogFixture {
    /**
     * Issue 14 (object-storage outage): with uploads failing, appends go on into the WAL and the log
     * cache until data not yet uploaded nears the budget (4 MiB here), then are refused with the
     * retriable KAFKA_STORAGE_ERROR before taking offsets, rather than waiting past
     * s3.append.timeout.ms and stopping the log. Once object storage is back the log appends at the
     * next offset.
     */
    @Test
    void append_objectStorageDownLogCacheNearlyFull_refusedRetriably_logAppendsOnAfterwards() throws Exception {
        PartitionLog log = fx.open();
        fx.objectStorageDown(true);
        long next = 0;
        PartitionLogException refused = null;
        while (refused == null && next < 200) {
            CompletableFuture<AppendResult> f = log.append(bigBatch());
            try {
                assertEquals(next, get(f).baseOffset());
                next++;
            } catch (java.util.concurrent.ExecutionException e) {
                refused = assertFails(Errors.KAFKA_STORAGE_ERROR, f);
            }
        }
        assertNotNull(refused, "refused before 200 batches of 64 KiB");
        assertTrue(next >= 40, "acknowledged into the log cache first: " + next + " batches");
        assertEquals(next, log.highWatermark());

        fx.objectStorageDown(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        AppendResult resumed = null;
        while (resumed == null) { // uploads are retried every second; refusals until they make room
            CompletableFuture<AppendResult> f = log.append(bigBatch());
            try {
                resumed = get(f);
            } catch (java.util.concurrent.ExecutionException e) {
                assertFails(Errors.KAFKA_STORAGE_ERROR, f);
                assertTrue(System.nanoTime() < deadline, "appending again within 30 s of object storage's return");
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        assertEquals(next, resumed.baseOffset(), "the next offset: nothing was taken by the refused appends");
    }

    private static MemoryRecords bigBatch() {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(T0, null, new byte[64 << 10]));
    }

    @Test
    void append_severalRequests_takeContiguousOffsets() throws Exception {
        PartitionLog log = fx.open();
        AppendResult a = get(log.append(batch(3)));
        AppendResult b = get(log.append(batch(1)));
        AppendResult c = get(log.append(batch(5)));
        assertEquals(new AppendResult(0, 2, -1, 0), a);
        assertEquals(new AppendResult(3, 3, -1, 0), b);
        assertEquals(new AppendResult(4, 8, -1, 0), c);
        assertEquals(9, log.highWatermark());
        assertTrue(log.sizeInBytes() > 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "lz4", "zstd", "snappy"})
    void read_returnsStoredBatchesByteForByte_withOffsetsAndEpochRewritten(String codec) throws Exception {
        PartitionLog log = fx.open();
        Compression compression = Compression.of(codec).build();
        get(log.append(batch(Compression.NONE, T0, 2))); // so the batch under test does not start at 0
        MemoryRecords sent = batch(compression, T0 + 5, 4);
        byte[] expected = bytes(sent.buffer());
        // What the log should store: the same bytes with base offset 2 and leader epoch 1.
        MutableRecordBatch want = MemoryRecords.readableRecords(ByteBuffer.wrap(expected)).batches().iterator().next();
        want.setLastOffset(2 + 3);
        want.setPartitionLeaderEpoch(log.leaderEpoch());

        assertEquals(new AppendResult(2, 5, -1, 0), get(log.append(sent)));
        LogReadResult r = get(log.read(2, 1 << 20, true));
        assertArrayEquals(expected, bytes(r.records().buffer()));
        assertEquals(6, r.highWatermark());

        RecordBatch stored = r.records().batches().iterator().next();
        assertEquals(compression.type(), stored.compressionType());
        stored.ensureValid();
        List<String> values = new ArrayList<>();
        for (Record rec : stored) {
            values.add(StandardCharsets.UTF_8.decode(rec.value()).toString() + "@" + rec.offset());
        }
        assertEquals(List.of("v0@2", "v1@3", "v2@4", "v3@5"), values);
    }

    @Test
    void read_offsetInsideABatch_returnsTheWholeBatch() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(5)));
        LogReadResult r = get(log.read(3, 1 << 20, true));
        RecordBatch b = r.records().batches().iterator().next();
        assertEquals(0, b.baseOffset());
        assertEquals(4, b.lastOffset());
    }

    @Test
    void read_outsideLogStartAndHighWatermark_isOffsetOutOfRange_atHighWatermarkEmpty() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(2)));
        get(log.append(batch(2)));
        get(log.deleteRecordsBefore(2));
        assertFails(Errors.OFFSET_OUT_OF_RANGE, log.read(1, 1024, true));
        assertFails(Errors.OFFSET_OUT_OF_RANGE, log.read(5, 1024, true));
        LogReadResult atEnd = get(log.read(4, 1024, true));
        assertEquals(0, atEnd.records().sizeInBytes());
        assertEquals(4, atEnd.highWatermark());
        assertEquals(2, atEnd.logStartOffset());
    }

    @Test
    void read_maxBytes_neverSplitsBatches_minOneMessageLetsALargeFirstBatchThrough() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(10)));
        get(log.append(batch(10)));
        int first = get(log.read(0, 1 << 20, true)).records().batches().iterator().next().sizeInBytes();

        assertEquals(0, get(log.read(0, first - 1, false)).records().sizeInBytes());
        assertEquals(first, get(log.read(0, first - 1, true)).records().sizeInBytes());
        assertEquals(first, get(log.read(0, first + 10, false)).records().sizeInBytes());
        assertEquals(2, count(get(log.read(0, 1 << 20, false)).records()));
    }

    private static int count(MemoryRecords records) {
        int n = 0;
        for (RecordBatch ignored : records.batches()) {
            n++;
        }
        return n;
    }

    @Test
    void append_magicV1_isInvalidRecord() throws Exception {
        PartitionLog log = fx.open();
        MemoryRecords v1 = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE,
                LogFixture.rec(T0, "old"));
        assertFails(Errors.INVALID_RECORD, log.append(v1));
        assertEquals(0, log.highWatermark());
    }

    @Test
    void append_flippedByte_isCorruptMessage() throws Exception {
        PartitionLog log = fx.open();
        MemoryRecords records = batch(3);
        ByteBuffer buf = records.buffer();
        int last = buf.limit() - 1;
        buf.put(last, (byte) (buf.get(last) ^ 0x5A));
        assertFails(Errors.CORRUPT_MESSAGE, log.append(records));
        assertEquals(0, log.highWatermark());
    }

    @Test
    void append_truncatedRequest_isCorruptMessage() throws Exception {
        PartitionLog log = fx.open();
        ByteBuffer whole = batch(3).buffer();
        ByteBuffer cut = ByteBuffer.allocate(whole.remaining() + 10).put(whole).put(batch(1).buffer().limit(10));
        assertFails(Errors.CORRUPT_MESSAGE, log.append(MemoryRecords.readableRecords(cut.flip())));
    }

    @Test
    void append_batchAboveMaxMessageBytes_isMessageTooLarge() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.MAX_MESSAGE_BYTES_CONFIG, "200"));
        get(log.append(batch(1)));
        PartitionLogException e = assertFails(Errors.MESSAGE_TOO_LARGE, log.append(batch(20)));
        assertTrue(e.getMessage().contains("max.message.bytes"), e.getMessage());
        assertEquals(1, log.highWatermark());
    }

    @Test
    void append_recordCountDisagreeingWithOffsets_isInvalidRecord() throws Exception {
        PartitionLog log = fx.open();
        MemoryRecords records = batch(3);
        ByteBuffer buf = records.buffer();
        buf.putInt(57, 2); // records count field of a v2 batch header
        MutableRecordBatch b = records.batches().iterator().next();
        long ts = b.maxTimestamp();
        b.setMaxTimestamp(TimestampType.CREATE_TIME, ts + 1); // each call recomputes the CRC
        b.setMaxTimestamp(TimestampType.CREATE_TIME, ts);
        b.ensureValid();
        assertFails(Errors.INVALID_RECORD, log.append(records));
    }

    @Test
    void append_createTimeOutsideBounds_isInvalidTimestamp() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, "60000"));
        assertFails(Errors.INVALID_TIMESTAMP, log.append(batch(Compression.NONE, T0 - 60_001, 1)));
        assertFails(Errors.INVALID_TIMESTAMP, log.append(batch(Compression.NONE, T0 + 3_600_001, 1)));
        assertEquals(new AppendResult(0, 0, -1, 0), get(log.append(batch(Compression.NONE, T0 - 60_000, 1))));
        assertEquals(new AppendResult(1, 1, -1, 0), get(log.append(batch(Compression.NONE, T0 + 3_600_000, 1))));
    }

    @Test
    void append_logAppendTime_rewritesTimestampAndAnswersIt() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime"));
        fx.clock.set(T0 + 42);
        // Timestamps far outside the CreateTime bounds do not matter: the broker replaces them.
        AppendResult r = get(log.append(batch(Compression.NONE, 5, 2)));
        assertEquals(new AppendResult(0, 1, T0 + 42, 0), r);
        RecordBatch stored = get(log.read(0, 1 << 20, true)).records().batches().iterator().next();
        stored.ensureValid();
        assertEquals(TimestampType.LOG_APPEND_TIME, stored.timestampType());
        assertEquals(T0 + 42, stored.maxTimestamp());
        for (Record rec : stored) {
            assertEquals(T0 + 42, rec.timestamp());
        }
    }

    @Test
    void append_retriedIdempotentBatch_answersOriginalOffsets_andIsStoredOnce() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(2)));
        AppendResult first = get(log.append(idempotent(7, (short) 0, 0, 3)));
        get(log.append(idempotent(7, (short) 0, 3, 1)));
        assertEquals(new AppendResult(2, 4, -1, 0), first);

        assertEquals(first, get(log.append(idempotent(7, (short) 0, 0, 3))));
        assertEquals(6, log.highWatermark());
        assertEquals(3, count(get(log.read(0, 1 << 20, true)).records()));
    }

    @Test
    void append_pipelinedBatches_acceptedInOrder_beforeEarlierOnesAreDurable() throws Exception {
        PartitionLog log = fx.open();
        List<CompletableFuture<AppendResult>> inFlight = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inFlight.add(log.append(idempotent(9, (short) 0, i * 2, 2)));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(new AppendResult(i * 2, i * 2 + 1, -1, 0), get(inFlight.get(i)));
        }
    }

    @Test
    void append_sequenceGap_isOutOfOrderSequence() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(idempotent(7, (short) 0, 0, 2)));
        assertFails(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, log.append(idempotent(7, (short) 0, 3, 1)));
        assertEquals(2, log.highWatermark());
        assertEquals(new AppendResult(2, 2, -1, 0), get(log.append(idempotent(7, (short) 0, 2, 1))));
    }

    @Test
    void append_olderProducerEpoch_isInvalidProducerEpoch() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(idempotent(7, (short) 1, 0, 1)));
        assertFails(Errors.INVALID_PRODUCER_EPOCH, log.append(idempotent(7, (short) 0, 1, 1)));
    }

    @Test
    void append_newerEpochMustStartAtZero_unknownProducerMayStartAnywhere() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(idempotent(7, (short) 0, 0, 1)));
        assertFails(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, log.append(idempotent(7, (short) 1, 5, 1)));
        assertEquals(new AppendResult(1, 1, -1, 0), get(log.append(idempotent(7, (short) 1, 0, 1))));
        // Kafka 4 (KIP-360): a producer the partition has no state for is accepted at any sequence.
        assertEquals(new AppendResult(2, 2, -1, 0), get(log.append(idempotent(8, (short) 0, 17, 1))));
    }

    @Test
    void awaitData_isWokenByAnAppend() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(1)));
        assertTrue(log.awaitData(0, IsolationLevel.READ_UNCOMMITTED).isDone(), "data above offset 0 exists");
        CompletableFuture<Void> waiting = log.awaitData(1, IsolationLevel.READ_UNCOMMITTED);
        CompletableFuture<Void> alsoWaiting = log.awaitData(1, IsolationLevel.READ_UNCOMMITTED);
        assertFalse(waiting.isDone());
        get(log.append(batch(1)));
        get(waiting);
        get(alsoWaiting);
        assertEquals(1, count(get(log.read(1, 1024, true)).records()));
    }

    @Test
    void awaitData_waitEndedByItsCaller_leavesTheLog() throws Exception {
        PartitionLog log = fx.open();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            waits.add(log.awaitData(0, IsolationLevel.READ_UNCOMMITTED));
        }
        assertEquals(100, log.waiting());
        // Fetches that stopped waiting (their deadline passed) end their waits: none stays behind.
        waits.forEach(w -> w.complete(null));
        assertEquals(0, log.waiting());
        CompletableFuture<Void> waiting = log.awaitData(0, IsolationLevel.READ_UNCOMMITTED);
        get(log.append(batch(1)));
        get(waiting);
        assertEquals(0, log.waiting());
    }

    @Test
    void wakeOnData_runsOnceOnTheNextAppend_unlessCancelled() throws Exception {
        PartitionLog log = fx.open();
        java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger cancelled = new java.util.concurrent.atomic.AtomicInteger();
        Runnable wake = woken::incrementAndGet;
        Runnable other = cancelled::incrementAndGet;
        assertTrue(log.wakeOnData(0, IsolationLevel.READ_UNCOMMITTED, wake));
        assertTrue(log.wakeOnData(0, IsolationLevel.READ_UNCOMMITTED, other));
        log.cancelWake(other);
        get(log.append(batch(1)));
        get(log.append(batch(1)));
        assertEquals(1, woken.get(), "run once, then forgotten");
        assertEquals(0, cancelled.get());
        assertEquals(0, log.waiting());
        assertFalse(log.wakeOnData(1, IsolationLevel.READ_UNCOMMITTED, wake),
                "data past offset 1 exists: nothing to wait for");
    }

    @Test
    void awaitData_isWokenByClose() throws Exception {
        PartitionLog log = fx.open();
        CompletableFuture<Void> waiting = log.awaitData(0, IsolationLevel.READ_UNCOMMITTED);
        assertFalse(waiting.isDone());
        get(log.close());
        get(waiting);
        assertFails(Errors.NOT_LEADER_OR_FOLLOWER, log.read(0, 1024, true));
    }

    @Test
    void append_concurrentCallers_getDistinctContiguousOffsets() throws Exception {
        PartitionLog log = fx.open();
        int threads = 4;
        int perThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<AppendResult>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    List<CompletableFuture<AppendResult>> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        mine.add(log.append(batch(2)));
                    }
                    List<AppendResult> done = new ArrayList<>();
                    for (CompletableFuture<AppendResult> f : mine) {
                        done.add(get(f));
                    }
                    return done;
                }));
            }
            TreeSet<Long> bases = new TreeSet<>();
            for (Future<List<AppendResult>> f : results) {
                for (AppendResult r : f.get(30, TimeUnit.SECONDS)) {
                    assertEquals(r.baseOffset() + 1, r.lastOffset());
                    assertTrue(bases.add(r.baseOffset()), "offset " + r.baseOffset() + " given twice");
                }
            }
            long expected = 0;
            for (long b : bases) {
                assertEquals(expected, b);
                expected += 2;
            }
            assertEquals(threads * perThread * 2L, log.highWatermark());
            // The stored batches carry the offsets the appenders were told.
            long next = 0;
            while (next < log.highWatermark()) {
                for (RecordBatch b : get(log.read(next, 1 << 20, true)).records().batches()) {
                    assertEquals(next, b.baseOffset());
                    next = b.lastOffset() + 1;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void append_afterANewerOwnerOpened_isNotLeader() throws Exception {
        PartitionLog old = fx.open();
        get(old.append(batch(1)));
        // The store must have uploaded the data before a new owner opens the stream on the same
        // node (the hand-over closes the old log; here the old one stays open to be fenced).
        get(fx.store.flush());
        PartitionLog current = fx.open();
        assertFails(Errors.NOT_LEADER_OR_FOLLOWER, old.append(batch(1)));
        assertEquals(new AppendResult(1, 1, -1, 0), get(current.append(batch(1))));
    }
}
