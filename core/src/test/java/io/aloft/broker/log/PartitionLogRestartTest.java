package io.aloft.broker.log;

import static io.aloft.broker.log.LogFixture.T0;
import static io.aloft.broker.log.LogFixture.assertFails;
import static io.aloft.broker.log.LogFixture.batch;
import static io.aloft.broker.log.LogFixture.get;
import static io.aloft.broker.log.LogFixture.idempotent;
import static io.aloft.broker.log.LogFixture.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * State that must survive a new owner: producer state, the time index, the log start. Each test
 * reopens the partition on the same streams with a higher epoch, after a clean close (state from
 * checkpoints), without one (state replayed from the records), or across a store restart.
 */
class PartitionLogRestartTest extends WithLogFixture {
    /** One index entry per batch, so retention and lookups are exact per batch. */
    /** With {@link #entryBatch}: one time-index entry per batch (an entry covers at least 1 MiB). */
    private static final Map<String, String> ENTRY_PER_BATCH = Map.of(LogConfig.INDEX_INTERVAL_BYTES_CONFIG, "1",
            LogConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(4 << 20));

    /** How a partition changes hands in a test. */
    private enum Handover { CLOSE, NO_CLOSE, STORE_RESTART }

    private PartitionLog reopen(PartitionLog old, Handover how, Map<String, String> config) throws Exception {
        switch (how) {
            case CLOSE -> get(old.close());
            // The old handle is simply abandoned; its data must be committed before another
            // handle on the same store opens the stream (see the report on StreamStore).
            case NO_CLOSE -> get(fx.store.flush());
            case STORE_RESTART -> {
                get(old.close());
                fx.stopStore();
                fx.startStore();
            }
            default -> throw new IllegalArgumentException();
        }
        return fx.open(config);
    }

    private void producerStateSurvives(Handover how) throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(1)));
        AppendResult first = get(log.append(idempotent(7, (short) 2, 0, 2)));
        AppendResult second = get(log.append(idempotent(7, (short) 2, 2, 3)));

        PartitionLog reopened = reopen(log, how, Map.of());
        assertEquals(6, reopened.highWatermark());
        // Retries of either batch answer their original offsets and append nothing.
        assertEquals(first.baseOffset(), get(reopened.append(idempotent(7, (short) 2, 0, 2))).baseOffset());
        assertEquals(second.lastOffset(), get(reopened.append(idempotent(7, (short) 2, 2, 3))).lastOffset());
        assertEquals(6, reopened.highWatermark());
        assertFails(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, reopened.append(idempotent(7, (short) 2, 6, 1)));
        assertFails(Errors.INVALID_PRODUCER_EPOCH, reopened.append(idempotent(7, (short) 1, 0, 1)));
        assertEquals(new AppendResult(6, 6, -1, 0), get(reopened.append(idempotent(7, (short) 2, 5, 1))));
    }

    @Test
    void producerState_survivesCloseAndReopen() throws Exception {
        producerStateSurvives(Handover.CLOSE);
    }

    @Test
    void producerState_survivesReopenWithoutClose() throws Exception {
        producerStateSurvives(Handover.NO_CLOSE);
    }

    @Test
    void producerState_survivesStoreRestart() throws Exception {
        producerStateSurvives(Handover.STORE_RESTART);
    }

    @Test
    void producerState_survivesDeletionOfItsBatches_throughTheCheckpoint() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(idempotent(7, (short) 0, 0, 2)));
        get(log.append(batch(3)));
        get(log.deleteRecordsBefore(PartitionLog.HIGH_WATERMARK));
        // Replaying the records could not know producer 7 now: only the checkpoint does.
        PartitionLog reopened = reopen(log, Handover.CLOSE, Map.of());
        assertEquals(5, reopened.logStartOffset());
        assertFails(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, reopened.append(idempotent(7, (short) 0, 3, 1)));
        assertEquals(new AppendResult(5, 5, -1, 5), get(reopened.append(idempotent(7, (short) 0, 2, 1))));
    }

    /** Batches at offsets 0-1 (T0+100), 2-4 (T0+300, records +300,+250,+310), 5 (T0+200). */
    private static void appendTimestamps(PartitionLog log) throws Exception {
        get(log.append(batch(Compression.NONE, T0 + 100, 2)));
        get(log.append(MemoryRecords.withRecords(Compression.gzip().build(), rec(T0 + 300, "a"),
                rec(T0 + 250, "b"), rec(T0 + 310, "c"))));
        get(log.append(batch(Compression.NONE, T0 + 200, 1)));
    }

    private static void assertTimestampLookups(PartitionLog log) throws Exception {
        int epoch = 1;
        assertEquals(Optional.of(new TimestampOffset(T0 + 100, 0, epoch)), get(log.offsetForTimestamp(T0)));
        assertEquals(Optional.of(new TimestampOffset(T0 + 100, 0, epoch)), get(log.offsetForTimestamp(T0 + 100)));
        // The first batch reaching T0+260 is 2-4; inside it, the first record at or above is offset 2.
        assertEquals(Optional.of(new TimestampOffset(T0 + 300, 2, epoch)), get(log.offsetForTimestamp(T0 + 260)));
        assertEquals(Optional.of(new TimestampOffset(T0 + 310, 4, epoch)), get(log.offsetForTimestamp(T0 + 305)));
        assertEquals(Optional.empty(), get(log.offsetForTimestamp(T0 + 311)));
        assertEquals(Optional.of(new TimestampOffset(T0 + 310, 4, epoch)), get(log.maxTimestamp()));
    }

    private void timeIndexSurvives(Handover how) throws Exception {
        PartitionLog log = fx.open();
        appendTimestamps(log);
        assertTimestampLookups(log);
        assertTimestampLookups(reopen(log, how, Map.of()));
    }

    @Test
    void offsetForTimestamp_beforeAndAfterCloseAndReopen() throws Exception {
        timeIndexSurvives(Handover.CLOSE);
    }

    @Test
    void offsetForTimestamp_beforeAndAfterReopenWithoutClose() throws Exception {
        timeIndexSurvives(Handover.NO_CLOSE);
    }

    @Test
    void offsetForTimestamp_emptyLog_findsNothing() throws Exception {
        PartitionLog log = fx.open();
        assertEquals(Optional.empty(), get(log.offsetForTimestamp(0)));
        assertEquals(Optional.empty(), get(log.maxTimestamp()));
    }

    @Test
    void checkpoints_partialThenFull_reloadToTheSameIndex() throws Exception {
        PartitionLog log = fx.open(ENTRY_PER_BATCH);
        for (int i = 0; i < 30; i++) {
            get(log.append(entryBatch(T0 + i * 10, 1)));
            get(log.checkpoint()); // partial ones until they outgrow the state, then a full one
        }
        PartitionLog reopened = reopen(log, Handover.CLOSE, ENTRY_PER_BATCH);
        for (int i = 0; i < 30; i++) {
            assertEquals(i, get(reopened.offsetForTimestamp(T0 + i * 10 - 5)).orElseThrow().offset());
        }
        assertEquals(log.sizeInBytes(), reopened.sizeInBytes());
    }

    @Test
    void deleteRecordsBefore_movesLogStart_survivesReopen() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(batch(3)));
        get(log.append(batch(3)));
        assertFails(Errors.OFFSET_OUT_OF_RANGE, log.deleteRecordsBefore(7));
        assertEquals(4L, get(log.deleteRecordsBefore(4)));
        assertEquals(4L, get(log.deleteRecordsBefore(2)), "a lower offset changes nothing");
        assertFails(Errors.OFFSET_OUT_OF_RANGE, log.read(3, 1024, true));
        RecordBatch first = get(log.read(4, 1024, true)).records().batches().iterator().next();
        assertEquals(3, first.baseOffset(), "the batch holding the log start is kept whole");
        assertEquals(new AppendResult(6, 6, -1, 4), get(log.append(batch(1))));

        PartitionLog reopened = reopen(log, Handover.STORE_RESTART, Map.of());
        assertEquals(4, reopened.logStartOffset());
        assertEquals(7, reopened.highWatermark());
        assertFails(Errors.OFFSET_OUT_OF_RANGE, reopened.read(3, 1024, true));
    }

    @Test
    void applyRetention_byTime_deletesBatchesOlderThanRetentionMs() throws Exception {
        Map<String, String> config = new java.util.HashMap<>(ENTRY_PER_BATCH);
        config.put(LogConfig.RETENTION_MS_CONFIG, "1000");
        PartitionLog log = fx.open(config);
        get(log.append(entryBatch(T0 - 5000, 2)));
        get(log.append(entryBatch(T0 - 1001, 2)));
        get(log.append(entryBatch(T0 - 1000, 2)));
        get(log.append(entryBatch(T0 - 6000, 2))); // old, but after a young batch: kept
        long before = log.sizeInBytes();

        assertEquals(4L, get(log.applyRetention(T0)));
        assertTrue(log.sizeInBytes() < before);
        assertEquals(Optional.of(new TimestampOffset(T0 - 1000, 4, 1)), get(log.offsetForTimestamp(0)));
        assertEquals(4L, get(log.applyRetention(T0)), "nothing more is old enough");
        assertEquals(4, reopen(log, Handover.CLOSE, config).logStartOffset());
    }

    @Test
    void applyRetention_bySize_keepsAtLeastRetentionBytes() throws Exception {
        PartitionLog log = fx.open(ENTRY_PER_BATCH);
        get(log.append(entryBatch(T0, 2)));
        long batchBytes = log.sizeInBytes();
        for (int i = 0; i < 4; i++) {
            get(log.append(entryBatch(T0, 2)));
        }
        log.updateConfig(LogConfig.fromTopicOverrides(Map.of(LogConfig.RETENTION_BYTES_CONFIG,
                Long.toString(2 * batchBytes + 1), LogConfig.RETENTION_MS_CONFIG, "-1"), log.config()));
        // Five batches; dropping two leaves three (above the limit), dropping three would leave two.
        assertEquals(4L, get(log.applyRetention(T0 + 1_000_000_000L)));
        assertEquals(3 * batchBytes, log.sizeInBytes());
        assertFails(Errors.OFFSET_OUT_OF_RANGE, log.read(3, 1024, true));
        assertEquals(3, get(log.read(4, 64 << 20, true)).records().sizeInBytes() / batchBytes);
    }

    @Test
    void applyRetention_disabled_deletesNothing() throws Exception {
        PartitionLog log = fx.open(Map.of(LogConfig.RETENTION_MS_CONFIG, "-1", LogConfig.RETENTION_BYTES_CONFIG, "-1"));
        get(log.append(batch(Compression.NONE, 1, 2)));
        assertEquals(0L, get(log.applyRetention(Long.MAX_VALUE)));
    }

    /** A batch of {@code n} records of timestamp {@code ts} filling one time-index entry (just over 1 MiB). */
    private static MemoryRecords entryBatch(long ts, int n) {
        byte[] value = new byte[LogConfig.MIN_INDEX_ENTRY_BYTES / n + 1];
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = new SimpleRecord(ts, ("k" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }
}
