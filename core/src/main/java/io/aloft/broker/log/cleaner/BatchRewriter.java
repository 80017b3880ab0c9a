package io.aloft.broker.log.cleaner;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * Decides what one stored record batch becomes in a compacted range, and writes it.
 *
 * <h2>Which records stay</h2>
 * A record stays when its key's latest offset in the {@link OffsetMap} is not above its own
 * (records of keys the map does not know stay too: the map covers the uncleaned part, and the clean
 * part holds one record per key already). A record without a key never stays (Kafka's cleaner
 * drops them; a compacted topic refuses them at produce, but a topic switched to compact may hold
 * some). A tombstone (a key without a value) stays until its batch's delete horizon: the first
 * cleaning that keeps it sets the horizon to now plus {@code delete.retention.ms} in the batch
 * (KIP-534: the batch's base timestamp carries it, flagged in its attributes), and the first
 * cleaning at or after the horizon drops it.
 *
 * <h2>What the batch becomes</h2>
 * <ul>
 *   <li>{@link Kind#KEEP}: every record stays and no horizon is to be set: the stored bytes as they
 *       are.</li>
 *   <li>{@link Kind#REWRITE}: some records stay: a new batch with the same base offset, last offset
 *       (so {@code lastOffsetDelta} may pass its last record, as in Kafka), producer id, epoch, base
 *       sequence, leader epoch, timestamp type and compression, holding those records at their
 *       offsets.</li>
 *   <li>{@link Kind#EMPTY}: no record stays, but the batch is the last one of an idempotent
 *       producer the log remembers: kept as an empty batch (header only) with the same span and
 *       producer fields, as Kafka keeps it, so the producer's sequence is still on record.</li>
 *   <li>{@link Kind#DROP}: no record stays (or none was there: a filler of an earlier cleaning): the
 *       offsets are left to one empty filler batch that covers the dropped batches around it (see
 *       {@link #filler}), so the compacted range still holds every offset in order, and fillers of
 *       successive cleanings merge; clients read the gap as Kafka's compacted gaps.</li>
 * </ul>
 * <h2>Transactions</h2>
 * As Kafka's cleaner does (KIP-98, KIP-534), with the range's {@link TransactionFilter}: every
 * record of an aborted transaction goes (its batch is dropped, or emptied when it is its
 * producer's last); a marker stays while a batch of its transaction is left before it in the
 * range; once none is, the first cleaning sets its delete horizon (now plus
 * {@code delete.retention.ms}, flagged in the batch, as for tombstones) and the first cleaning at
 * or after the horizon drops it, unless it is its producer's last word (a producer with no data in
 * its current epoch: that epoch fences zombies), which is kept emptied. An emptied marker goes as
 * soon as it is no longer its producer's last. The cleaner never passes the last stable offset
 * (see {@link io.aloft.broker.log.LogCompaction#plan}), so every transaction it reads is decided.
 *
 * <p>Not thread-safe: confined to its cleaner thread (it reuses decompression buffers).
 */
final class BatchRewriter {
    /** What a batch becomes. */
    enum Kind { KEEP, REWRITE, EMPTY, DROP }

    /**
     * The outcome for one batch.
     *
     * @param kind what it becomes
     * @param bytes the batch to write (KEEP: the stored bytes; REWRITE and EMPTY: new ones), null for DROP
     * @param maxTimestamp the largest timestamp of the records written, -1 if none
     * @param recordsIn records in the stored batch
     * @param recordsOut records written
     */
    record Outcome(Kind kind, ByteBuffer bytes, long maxTimestamp, int recordsIn, int recordsOut) {
    }

    private final OffsetMap map;
    private final long nowMs;
    private final long deleteRetentionMs;
    private final Map<Long, Long> producerLastOffsets;
    private final Map<Long, Short> producerMarkerEpochs;
    private final TransactionFilter txns;
    private final BufferSupplier buffers = BufferSupplier.create();

    /**
     * @param map the latest offset of each key of the uncleaned part
     * @param nowMs the cleaning's clock, for delete horizons
     * @param deleteRetentionMs the topic's {@code delete.retention.ms}
     * @param producerLastOffsets per producer id, the last offset of its last batch
     * @param producerMarkerEpochs per producer id with no batch of data in its current epoch, that
     *     epoch: its marker of that epoch is its last word, kept (emptied once it may go)
     * @param txns the pass's transaction bookkeeping, fed every batch in offset order
     */
    BatchRewriter(OffsetMap map, long nowMs, long deleteRetentionMs, Map<Long, Long> producerLastOffsets,
            Map<Long, Short> producerMarkerEpochs, TransactionFilter txns) {
        this.map = map;
        this.nowMs = nowMs;
        this.deleteRetentionMs = deleteRetentionMs;
        this.producerLastOffsets = producerLastOffsets;
        this.producerMarkerEpochs = producerMarkerEpochs;
        this.txns = txns;
    }

    /** A rewriter for a range without transactions (tests). */
    BatchRewriter(OffsetMap map, long nowMs, long deleteRetentionMs, Map<Long, Long> producerLastOffsets) {
        this(map, nowMs, deleteRetentionMs, producerLastOffsets, Map.of(), new TransactionFilter(List.of()));
    }

    /**
     * Decides and writes what {@code batch} becomes.
     *
     * @param stored the batch's bytes, as stored (borrowed; a KEEP outcome returns a view of them)
     */
    Outcome rewrite(RecordBatch batch, ByteBuffer stored) {
        if (batch.isControlBatch()) {
            return marker(batch, stored);
        }
        boolean aborted = txns.onDataBatch(batch);
        long horizon = batch.deleteHorizonMs().orElse(RecordBatch.NO_TIMESTAMP);
        boolean horizonPassed = horizon != RecordBatch.NO_TIMESTAMP && nowMs >= horizon;
        List<Record> kept = new ArrayList<>();
        int in = 0;
        boolean tombstoneKept = false;
        try (CloseableIterator<Record> it = batch.streamingIterator(buffers)) {
            while (it.hasNext()) {
                Record r = it.next();
                in++;
                if (aborted || !r.hasKey() || map.get(r.key()) > r.offset()) {
                    continue;
                }
                if (!r.hasValue()) {
                    if (horizonPassed) {
                        continue;
                    }
                    tombstoneKept = true;
                }
                kept.add(r);
            }
        }
        boolean setHorizon = tombstoneKept && horizon == RecordBatch.NO_TIMESTAMP;
        if (kept.isEmpty()) {
            Long last = batch.hasProducerId() ? producerLastOffsets.get(batch.producerId()) : null;
            if (last != null && last == batch.lastOffset()) {
                // Already empty (an earlier cleaning emptied it) or emptied now.
                return in == 0 ? new Outcome(Kind.KEEP, stored, -1, 0, 0) : new Outcome(Kind.EMPTY, empty(batch), -1,
                        in, 0);
            }
            // An empty batch of an earlier cleaning (a filler) joins the run around it, so fillers merge.
            return new Outcome(Kind.DROP, null, -1, in, 0);
        }
        if (kept.size() == in && !setHorizon) {
            return new Outcome(Kind.KEEP, stored, batch.maxTimestamp(), in, in);
        }
        long newHorizon = setHorizon ? saturatedAdd(nowMs, deleteRetentionMs)
                : tombstoneKept ? horizon : RecordBatch.NO_TIMESTAMP;
        return rewritten(batch, kept, newHorizon, in);
    }

    /**
     * A transaction marker: kept while a batch of its transaction is left before it; once none is,
     * kept with a delete horizon until {@code delete.retention.ms} has passed, then dropped (or
     * emptied, when it is its producer's last word: its epoch is on record for fencing).
     */
    private Outcome marker(RecordBatch batch, ByteBuffer stored) {
        boolean mayGo = txns.onMarker(batch);
        int in = countOf(batch);
        long horizon = batch.deleteHorizonMs().orElse(RecordBatch.NO_TIMESTAMP);
        boolean discard = mayGo && horizon != RecordBatch.NO_TIMESTAMP && nowMs >= horizon;
        Short lastEpoch = producerMarkerEpochs.get(batch.producerId());
        boolean producersLast = lastEpoch != null && lastEpoch == batch.producerEpoch();
        if (discard || in == 0) {
            if (producersLast) {
                return in == 0 ? new Outcome(Kind.KEEP, stored, -1, 0, 0)
                        : new Outcome(Kind.EMPTY, empty(batch), -1, in, 0);
            }
            return new Outcome(Kind.DROP, null, -1, in, 0);
        }
        if (!mayGo || horizon != RecordBatch.NO_TIMESTAMP) {
            return new Outcome(Kind.KEEP, stored, batch.maxTimestamp(), in, in);
        }
        return rewrittenMarker(batch, saturatedAdd(nowMs, deleteRetentionMs));
    }

    /** The marker with its delete horizon set: same offsets, producer fields, timestamps and control record. */
    private Outcome rewrittenMarker(RecordBatch batch, long horizon) {
        boolean logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        ByteBufferOutputStream out = new ByteBufferOutputStream(Math.max(128, batch.sizeInBytes()));
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, RecordBatch.MAGIC_VALUE_V2,
                Compression.of(batch.compressionType()).build(), batch.timestampType(), batch.baseOffset(),
                logAppendTime ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP, batch.producerId(),
                batch.producerEpoch(), batch.baseSequence(), batch.isTransactional(), true,
                batch.partitionLeaderEpoch(), Integer.MAX_VALUE, horizon);
        int in = 0;
        for (Record r : batch) {
            builder.appendControlRecordWithOffset(r.offset(), new SimpleRecord(r.timestamp(), r.key(), r.value(),
                    r.headers()));
            in++;
        }
        builder.overrideLastOffset(batch.lastOffset());
        return new Outcome(Kind.REWRITE, builder.build().buffer(), batch.maxTimestamp(), in, in);
    }

    private Outcome rewritten(RecordBatch batch, List<Record> kept, long horizon, int in) {
        boolean logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        ByteBufferOutputStream out = new ByteBufferOutputStream(Math.max(256, batch.sizeInBytes()));
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, RecordBatch.MAGIC_VALUE_V2,
                Compression.of(batch.compressionType()).build(), batch.timestampType(), batch.baseOffset(),
                logAppendTime ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP, batch.producerId(),
                batch.producerEpoch(), batch.baseSequence(), batch.isTransactional(), false,
                batch.partitionLeaderEpoch(), Integer.MAX_VALUE, horizon);
        long maxTs = RecordBatch.NO_TIMESTAMP;
        for (Record r : kept) {
            builder.appendWithOffset(r.offset(), r);
            maxTs = Math.max(maxTs, r.timestamp());
        }
        // Kafka keeps the batch's last offset, so the next batch still follows it.
        builder.overrideLastOffset(batch.lastOffset());
        ByteBuffer bytes = builder.build().buffer();
        return new Outcome(Kind.REWRITE, bytes, logAppendTime ? batch.maxTimestamp() : maxTs, in, kept.size());
    }

    /** The batch's header with no records: same span, producer fields and leader epoch. */
    private static ByteBuffer empty(RecordBatch batch) {
        ByteBuffer out = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(out, RecordBatch.MAGIC_VALUE_V2, batch.producerId(), batch.producerEpoch(),
                batch.baseSequence(), batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(),
                batch.timestampType(), batch.maxTimestamp(), batch.isTransactional(), batch.isControlBatch());
        return out.flip();
    }

    /**
     * An empty batch covering {@code [baseOffset, endOffset)}, left where dropped batches were: no
     * producer, no records, no timestamp. Readers move past it by its last offset.
     *
     * @param leaderEpoch the leader epoch of the first batch it replaces
     */
    static ByteBuffer filler(long baseOffset, long endOffset, int leaderEpoch) {
        ByteBuffer out = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(out, RecordBatch.MAGIC_VALUE_V2, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, baseOffset, endOffset - 1, leaderEpoch,
                TimestampType.CREATE_TIME, RecordBatch.NO_TIMESTAMP, false, false);
        return out.flip();
    }

    private static int countOf(RecordBatch batch) {
        Integer n = batch.countOrNull();
        return n == null ? 0 : n;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
