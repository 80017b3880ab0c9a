package io.aloft.broker.log.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.AbortedTxn;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * What transactional batches and markers become in one rewrite pass (Kafka's cleaner rules,
 * KIP-98/KIP-534): aborted records go, a marker stays while its transaction has a batch before it,
 * then gets a delete horizon, then goes; a producer's last batch or last marker stays emptied.
 */
class BatchRewriterTransactionsTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long DELETE_RETENTION = 60_000;
    private static final long PID = 7;

    private final OffsetMap map = new OffsetMap(24 * 1000, 0.9);

    private static SimpleRecord rec(String key, String value) {
        return new SimpleRecord(NOW - 100, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    private static MemoryRecords txnBatch(long base, int seq, SimpleRecord... records) {
        return MemoryRecords.withTransactionalRecords(base, Compression.NONE, PID, (short) 0, seq, 0, records);
    }

    private static MemoryRecords marker(long offset, ControlRecordType type) {
        return MemoryRecords.withEndTransactionMarker(offset, NOW - 50, 0, PID, (short) 0,
                new EndTransactionMarker(type, 0));
    }

    private static RecordBatch only(ByteBuffer b) {
        return MemoryRecords.readableRecords(b.duplicate()).batches().iterator().next();
    }

    /** One pass over {@code batches} (in offset order) at {@code now}: the outcome of each. */
    private List<BatchRewriter.Outcome> pass(long now, List<AbortedTxn> aborted, Map<Long, Long> lastOffsets,
            Map<Long, Short> markerEpochs, List<ByteBuffer> batches, List<AbortedTxn> emptied) {
        TransactionFilter txns = new TransactionFilter(aborted);
        BatchRewriter rewriter = new BatchRewriter(map, now, DELETE_RETENTION, lastOffsets, markerEpochs, txns);
        List<BatchRewriter.Outcome> out = new ArrayList<>();
        for (ByteBuffer b : batches) {
            out.add(rewriter.rewrite(only(b), b.duplicate()));
        }
        emptied.addAll(txns.emptiedAborts());
        return out;
    }

    private static List<BatchRewriter.Kind> kinds(List<BatchRewriter.Outcome> outcomes) {
        return outcomes.stream().map(BatchRewriter.Outcome::kind).toList();
    }

    @Test
    void abortedTransaction_recordsGoFirst_thenItsEntryAndHorizon_thenTheMarkerAfterDeleteRetention() {
        map.put(ByteBuffer.wrap("a".getBytes(StandardCharsets.UTF_8)), 0);
        AbortedTxn txn = new AbortedTxn(PID, 0, 1);
        List<AbortedTxn> emptied = new ArrayList<>();

        // Pass 1: the aborted batch goes though it is its key's latest; the marker stays as stored.
        List<BatchRewriter.Outcome> first = pass(NOW, List.of(txn), Map.of(), Map.of(),
                List.of(txnBatch(0, 0, rec("a", "x")).buffer(), marker(1, ControlRecordType.ABORT).buffer()),
                emptied);
        assertEquals(List.of(BatchRewriter.Kind.DROP, BatchRewriter.Kind.KEEP), kinds(first));
        assertEquals(List.of(), emptied, "a batch of it was still there: readers need its entry");

        // Pass 2 (the batch is a filler now): the marker may go: its horizon is set, its entry goes.
        ByteBuffer filler = BatchRewriter.filler(0, 1, 0);
        List<BatchRewriter.Outcome> second = pass(NOW + 1, List.of(txn), Map.of(), Map.of(),
                List.of(filler, marker(1, ControlRecordType.ABORT).buffer()), emptied);
        assertEquals(BatchRewriter.Kind.REWRITE, second.get(1).kind());
        RecordBatch marked = only(second.get(1).bytes());
        assertEquals(NOW + 1 + DELETE_RETENTION, marked.deleteHorizonMs().getAsLong());
        assertTrue(marked.isControlBatch());
        assertEquals(1, marked.baseOffset());
        assertEquals(PID, marked.producerId());
        marked.ensureValid();
        assertEquals(ControlRecordType.ABORT, ControlRecordType.parse(marked.iterator().next().key()));
        assertEquals(List.of(txn), emptied);

        // Before the horizon it stays as it is; at the horizon it goes.
        ByteBuffer markedBytes = second.get(1).bytes();
        assertEquals(BatchRewriter.Kind.KEEP, pass(NOW + DELETE_RETENTION, List.of(), Map.of(), Map.of(),
                List.of(markedBytes), new ArrayList<>()).get(0).kind());
        assertEquals(BatchRewriter.Kind.DROP, pass(NOW + 1 + DELETE_RETENTION, List.of(), Map.of(), Map.of(),
                List.of(markedBytes), new ArrayList<>()).get(0).kind());
    }

    @Test
    void committedMarker_staysWhileABatchOfItsTransactionIsLeft() {
        map.put(ByteBuffer.wrap("a".getBytes(StandardCharsets.UTF_8)), 5); // superseded later
        List<BatchRewriter.Outcome> out = pass(NOW, List.of(), Map.of(), Map.of(),
                List.of(txnBatch(0, 0, rec("a", "old")).buffer(), marker(1, ControlRecordType.COMMIT).buffer()),
                new ArrayList<>());

        assertEquals(List.of(BatchRewriter.Kind.DROP, BatchRewriter.Kind.KEEP), kinds(out),
                "the batch was read in this pass: the marker waits for the next");
    }

    @Test
    void committedRecords_kept() {
        map.put(ByteBuffer.wrap("a".getBytes(StandardCharsets.UTF_8)), 0);
        List<BatchRewriter.Outcome> out = pass(NOW, List.of(new AbortedTxn(PID, 10, 12)), Map.of(), Map.of(),
                List.of(txnBatch(0, 0, rec("a", "committed")).buffer(), marker(1, ControlRecordType.COMMIT).buffer()),
                new ArrayList<>());

        assertEquals(List.of(BatchRewriter.Kind.KEEP, BatchRewriter.Kind.KEEP), kinds(out));
    }

    @Test
    void abortedBatch_producersLast_keptEmptied() {
        List<BatchRewriter.Outcome> out = pass(NOW, List.of(new AbortedTxn(PID, 0, 2)), Map.of(PID, 1L), Map.of(),
                List.of(txnBatch(0, 0, rec("a", "x"), rec("b", "y")).buffer()), new ArrayList<>());

        assertEquals(BatchRewriter.Kind.EMPTY, out.get(0).kind());
        RecordBatch empty = only(out.get(0).bytes());
        assertEquals(0, empty.countOrNull());
        assertEquals(1, empty.lastOffset());
        assertEquals(1, empty.lastSequence());
        assertTrue(empty.isTransactional());
    }

    @Test
    void producersLastMarker_keptEmptiedAfterItsHorizon_neverDropped() {
        ByteBuffer marked = pass(NOW, List.of(), Map.of(), Map.of(PID, (short) 0),
                List.of(marker(3, ControlRecordType.COMMIT).buffer()), new ArrayList<>()).get(0).bytes();
        assertTrue(only(marked).deleteHorizonMs().isPresent());

        BatchRewriter.Outcome after = pass(NOW + DELETE_RETENTION, List.of(), Map.of(), Map.of(PID, (short) 0),
                List.of(marked), new ArrayList<>()).get(0);

        assertEquals(BatchRewriter.Kind.EMPTY, after.kind());
        RecordBatch empty = only(after.bytes());
        assertTrue(empty.isControlBatch(), "still the producer's marker of epoch 0");
        assertEquals(0, empty.countOrNull());
        assertEquals(BatchRewriter.Kind.KEEP, pass(NOW + 2 * DELETE_RETENTION, List.of(), Map.of(),
                Map.of(PID, (short) 0), List.of(after.bytes()), new ArrayList<>()).get(0).kind());
        // Once the producer has written again, the emptied marker goes.
        assertEquals(BatchRewriter.Kind.DROP, pass(NOW + 2 * DELETE_RETENTION, List.of(), Map.of(PID, 9L), Map.of(),
                List.of(after.bytes()), new ArrayList<>()).get(0).kind());
    }

    @Test
    void markerOnLogAppendTimeTopic_keepsItsTimestampWhenItsHorizonIsSet() {
        MemoryRecords m = MemoryRecords.withEndTransactionMarker(4, NOW - 10, 0, PID, (short) 0,
                new EndTransactionMarker(ControlRecordType.ABORT, 3));
        // As stored on a LogAppendTime topic: the batch stamped with the broker's time.
        m.batches().iterator().next().setMaxTimestamp(TimestampType.LOG_APPEND_TIME, NOW - 5);

        RecordBatch out = only(pass(NOW, List.of(), Map.of(), Map.of(), List.of(m.buffer()), new ArrayList<>())
                .get(0).bytes());

        assertEquals(TimestampType.LOG_APPEND_TIME, out.timestampType());
        assertEquals(NOW - 5, out.maxTimestamp());
        assertEquals(3, EndTransactionMarker.deserialize(out.iterator().next()).coordinatorEpoch());
        assertFalse(out.deleteHorizonMs().isEmpty());
        out.ensureValid();
    }
}
