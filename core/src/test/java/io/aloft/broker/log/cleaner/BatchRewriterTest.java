package io.aloft.broker.log.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** What one stored batch becomes in a compacted range. */
class BatchRewriterTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long DELETE_RETENTION = 60_000;

    private final OffsetMap map = new OffsetMap(24 * 1000, 0.9);

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static SimpleRecord rec(String key, String value) {
        return new SimpleRecord(NOW - 100, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static MemoryRecords batch(long base, Compression compression, SimpleRecord... records) {
        return MemoryRecords.withRecords(base, compression, records);
    }

    private static RecordBatch only(MemoryRecords m) {
        return m.batches().iterator().next();
    }

    private BatchRewriter rewriter(long now, Map<Long, Long> producers) {
        return new BatchRewriter(map, now, DELETE_RETENTION, producers);
    }

    private BatchRewriter.Outcome rewrite(MemoryRecords m) {
        return rewriter(NOW, Map.of()).rewrite(only(m), m.buffer());
    }

    private static RecordBatch read(BatchRewriter.Outcome o) {
        return only(MemoryRecords.readableRecords(o.bytes()));
    }

    private static List<Long> offsets(RecordBatch b) {
        List<Long> out = new ArrayList<>();
        for (Record r : b) {
            out.add(r.offset());
        }
        return out;
    }

    /** Records each key's latest offset as a cleaning's first pass would. */
    private void latest(String key, long offset) {
        map.put(bytes(key), offset);
    }

    @Test
    void everyRecordLatest_keptAsStored() {
        MemoryRecords m = batch(10, Compression.NONE, rec("a", "1"), rec("b", "2"));
        latest("a", 10);
        latest("b", 11);

        ByteBuffer stored = m.buffer();
        BatchRewriter.Outcome o = rewriter(NOW, Map.of()).rewrite(only(m), stored);

        assertEquals(BatchRewriter.Kind.KEEP, o.kind());
        assertSame(stored, o.bytes());
        assertEquals(2, o.recordsOut());
    }

    @Test
    void keysTheMapDoesNotKnow_stay() {
        MemoryRecords m = batch(0, Compression.NONE, rec("clean-part-key", "1"));
        assertEquals(BatchRewriter.Kind.KEEP, rewrite(m).kind());
    }

    @Test
    void supersededRecords_goAndTheBatchKeepsItsOffsets() {
        MemoryRecords m = batch(100, Compression.lz4().build(), rec("a", "1"), rec("b", "2"), rec("a", "3"),
                rec("c", "4"));
        latest("a", 102);
        latest("b", 500);
        latest("c", 103);

        BatchRewriter.Outcome o = rewrite(m);

        assertEquals(BatchRewriter.Kind.REWRITE, o.kind());
        RecordBatch out = read(o);
        assertEquals(100, out.baseOffset());
        assertEquals(103, out.lastOffset());
        assertEquals(List.of(102L, 103L), offsets(out));
        assertEquals(CompressionType.LZ4, out.compressionType());
        assertEquals(2, o.recordsOut());
        assertEquals(4, o.recordsIn());
        out.ensureValid();
    }

    @Test
    void lastRecordSuperseded_lastOffsetStaysTheBatchs() {
        MemoryRecords m = batch(0, Compression.NONE, rec("a", "1"), rec("b", "2"));
        latest("b", 7);

        RecordBatch out = read(rewrite(m));

        assertEquals(List.of(0L), offsets(out));
        assertEquals(1, out.lastOffset(), "lastOffsetDelta passes the last record, as Kafka writes it");
    }

    @Test
    void nothingLeft_dropped() {
        MemoryRecords m = batch(5, Compression.NONE, rec("a", "1"));
        latest("a", 9);

        BatchRewriter.Outcome o = rewrite(m);

        assertEquals(BatchRewriter.Kind.DROP, o.kind());
        assertNull(o.bytes());
    }

    @Test
    void recordsWithoutKey_go() {
        MemoryRecords m = batch(0, Compression.NONE, rec(null, "x"), rec("a", "1"));
        RecordBatch out = read(rewrite(m));
        assertEquals(List.of(1L), offsets(out));
    }

    @Test
    void producersLastBatch_keptEmptyWithItsProducerState() {
        MemoryRecords m = MemoryRecords.withIdempotentRecords(40, Compression.NONE, 77L, (short) 3, 12, 5,
                rec("a", "1"), rec("a", "2"));
        latest("a", 99);

        BatchRewriter.Outcome o = rewriter(NOW, Map.of(77L, 41L)).rewrite(only(m), m.buffer());

        assertEquals(BatchRewriter.Kind.EMPTY, o.kind());
        RecordBatch out = read(o);
        assertEquals(40, out.baseOffset());
        assertEquals(41, out.lastOffset());
        assertEquals(77L, out.producerId());
        assertEquals(3, out.producerEpoch());
        assertEquals(12, out.baseSequence());
        assertEquals(13, out.lastSequence());
        assertEquals(5, out.partitionLeaderEpoch());
        assertEquals(0, out.countOrNull());
        out.ensureValid();
        // Not the producer's last batch: dropped like any other.
        assertEquals(BatchRewriter.Kind.DROP, rewriter(NOW, Map.of(77L, 90L)).rewrite(only(m), m.buffer()).kind());
    }

    @Test
    void tombstone_keptWithAHorizon_thenDroppedOnceItPassed() {
        MemoryRecords m = batch(0, Compression.NONE, rec("gone", null), rec("b", "2"));

        BatchRewriter.Outcome first = rewrite(m);

        assertEquals(BatchRewriter.Kind.REWRITE, first.kind(), "the horizon is set on the first cleaning");
        RecordBatch marked = read(first);
        assertEquals(OptionalLong.of(NOW + DELETE_RETENTION), marked.deleteHorizonMs());
        assertEquals(List.of(0L, 1L), offsets(marked));
        for (Record r : marked) {
            assertEquals(NOW - 100, r.timestamp(), "record timestamps survive the horizon in the base timestamp");
        }
        // Before the horizon: kept as it is now.
        assertEquals(BatchRewriter.Kind.KEEP, rewriter(NOW + DELETE_RETENTION - 1, Map.of())
                .rewrite(marked, first.bytes()).kind());
        // At the horizon: the tombstone goes, the other record stays.
        RecordBatch after = read(rewriter(NOW + DELETE_RETENTION, Map.of()).rewrite(marked, first.bytes()));
        assertEquals(List.of(1L), offsets(after));
        assertFalse(after.deleteHorizonMs().isPresent(), "no tombstone left, no horizon");
    }

    @Test
    void supersededTombstone_goesAtOnce() {
        MemoryRecords m = batch(0, Compression.NONE, rec("k", null), rec("x", "1"));
        latest("k", 3);
        assertEquals(List.of(1L), offsets(read(rewrite(m))));
    }

    @Test
    void logAppendTimeBatch_keepsItsTimestampType() {
        MemoryRecords m = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE,
                TimestampType.LOG_APPEND_TIME, rec("a", "1"), rec("b", "2"));
        latest("a", 5);

        RecordBatch out = read(rewrite(m));

        assertEquals(TimestampType.LOG_APPEND_TIME, out.timestampType());
        assertEquals(List.of(1L), offsets(out));
    }

    @Test
    void fillerOfAnEarlierCleaning_dropped_soFillersMerge() {
        ByteBuffer filler = BatchRewriter.filler(0, 10, 1);
        RecordBatch f = only(MemoryRecords.readableRecords(filler.duplicate()));
        assertEquals(BatchRewriter.Kind.DROP, rewriter(NOW, Map.of()).rewrite(f, filler).kind());
    }

    @Test
    void filler_coversItsSpanWithNoRecords() {
        RecordBatch f = only(MemoryRecords.readableRecords(BatchRewriter.filler(30, 45, 4)));
        assertEquals(30, f.baseOffset());
        assertEquals(44, f.lastOffset());
        assertEquals(45, f.nextOffset());
        assertEquals(0, f.countOrNull());
        assertEquals(4, f.partitionLeaderEpoch());
        assertFalse(f.hasProducerId());
        assertTrue(f.iterator().hasNext() == false);
        f.ensureValid();
    }
}
