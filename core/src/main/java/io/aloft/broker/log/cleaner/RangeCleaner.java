package io.aloft.broker.log.cleaner;

import io.aloft.broker.log.AbortedTxn;
import io.aloft.broker.log.CleaningPlan;
import io.aloft.broker.log.CompactedIndex;
import io.aloft.broker.log.LogCompaction;
import io.aloft.stream.BlockingWait;
import io.aloft.stream.FetchResult;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.store.RangeRewrite;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * One cleaning of one partition, on the calling cleaner thread:
 * <ol>
 *   <li><b>Key map.</b> Reads the dirty part {@code [cleanedUpTo, cleanableEnd)} and records each
 *       key's latest offset in the {@link OffsetMap}, leaving out records of aborted transactions
 *       (an aborted record never supersedes a committed one; the rewrite removes them all, see
 *       {@link BatchRewriter}). When the map cannot take the next batch's
 *       records, the cleaning ends there instead ({@code mapEnd}, moved down to a time-index
 *       boundary when that still leaves something), and the next cleaning continues from it: a log
 *       with more keys than the map holds is cleaned in several passes, never held in memory.</li>
 *   <li><b>Rewrite.</b> Reads {@code [start, mapEnd)} again, clean part included (newer records may
 *       supersede records there too), and writes what each batch becomes ({@link BatchRewriter})
 *       as new objects through a {@link RangeRewrite}: kept batches as they are, rewritten ones
 *       with the records that stay, and for each run of dropped batches one empty filler batch
 *       spanning their offsets, so the new objects hold every offset of the range.</li>
 *   <li><b>Commit</b> through {@link LogCompaction#commit}: the range is replaced in one metadata
 *       command and the time index follows; aborted transactions none of whose records are left
 *       (see {@link TransactionFilter}) leave the partition's aborted-transaction index.</li>
 * </ol>
 * Reads go through the partition's stream (log cache, block cache, readahead), and every byte read
 * or written is counted against the {@link Throttler}. Memory: the map, one read of
 * {@code log.cleaner.io.buffer.size}, the batch being rewritten, and the object being uploaded.
 *
 * <p>Not thread-safe: one instance per cleaner thread.
 */
final class RangeCleaner {
    /**
     * What one cleaning did.
     *
     * @param start first offset rewritten
     * @param end offset just past the rewritten range (the new cleaned-up-to offset)
     * @param reachedCleanableEnd false when the key map filled first (another pass follows)
     * @param bytesRead stored bytes read, both passes
     * @param bytesInRange stored bytes of the rewritten range before
     * @param bytesWritten bytes of the rewritten range after
     */
    record Result(TopicPartition tp, long start, long end, boolean reachedCleanableEnd, long bytesRead,
            long bytesInRange, long bytesWritten, long recordsIn, long recordsOut, long keys, long nanos) {
    }

    private final OffsetMap map;
    private final int readBytes;
    private final Throttler throttler;
    private final LongSupplier clock;
    private final LongSupplier nanoTime;
    private final BufferSupplier buffers = BufferSupplier.create();

    RangeCleaner(OffsetMap map, int readBytes, Throttler throttler, LongSupplier clock, LongSupplier nanoTime) {
        this.map = map;
        this.readBytes = readBytes;
        this.throttler = throttler;
        this.clock = clock;
        this.nanoTime = nanoTime;
    }

    /** Cleans the partition as {@code plan} describes; nothing is left half done if it throws. */
    Result clean(LogCompaction log, CleaningPlan plan) throws InterruptedException {
        long started = nanoTime.getAsLong();
        map.clear();
        Counters c = new Counters();
        long mapEnd = buildMap(log, plan, c);
        Rewriting w = new Rewriting(log, plan, mapEnd, c);
        w.run();
        return new Result(plan.tp(), w.start, mapEnd, mapEnd == plan.cleanableEnd(), c.read, c.inRange, c.written,
                c.recordsIn, c.recordsOut, map.size(), nanoTime.getAsLong() - started);
    }

    private static final class Counters {
        long read;
        long inRange;
        long written;
        long recordsIn;
        long recordsOut;
    }

    /** Fills the map from the dirty part; returns where the cleaning ends. */
    private long buildMap(LogCompaction log, CleaningPlan plan, Counters c) throws InterruptedException {
        long next = plan.cleanedUpTo();
        long end = plan.cleanableEnd();
        AbortedBatches aborted = new AbortedBatches(plan.abortedTransactions());
        while (next < end) {
            FetchResult fetched = await(log.read(next, end, readBytes));
            if (fetched.batches().isEmpty()) {
                throw new IllegalStateException(plan.tp() + ": nothing stored at " + next + " below " + end);
            }
            for (StreamRecordBatch sb : fetched.batches()) {
                if (sb.lastOffsetExclusive() <= next) {
                    continue;
                }
                RecordBatch batch = only(plan.tp(), sb);
                if (!batch.isControlBatch() && !aborted.contains(batch)) {
                    int records = sb.count();
                    if (!map.hasRoomFor(records)) {
                        return stopAt(log, plan, sb.baseOffset(), records);
                    }
                    try (CloseableIterator<Record> it = batch.streamingIterator(buffers)) {
                        while (it.hasNext()) {
                            Record r = it.next();
                            if (r.hasKey()) {
                                map.put(r.key(), r.offset());
                            }
                        }
                    }
                }
                c.read += sb.size();
                next = sb.lastOffsetExclusive();
            }
            throttler.acquire(fetched.sizeInBytes());
        }
        return end;
    }

    /** Where a cleaning whose map is full at {@code offset} ends: a time-index boundary if one leaves something. */
    private long stopAt(LogCompaction log, CleaningPlan plan, long offset, int records) {
        long boundary = log.entryBoundaryAtOrBelow(offset);
        if (boundary > plan.cleanedUpTo()) {
            return boundary;
        }
        if (offset > plan.cleanedUpTo()) {
            return offset;
        }
        throw new IllegalStateException(plan.tp() + ": the key map (" + map.slots() + " slots) cannot hold the "
                + records + " records of the batch at " + offset + "; raise " + CleanerConfig.DEDUPE_BUFFER_SIZE_CONFIG);
    }

    /** The second pass: reads [start, end) and writes the compacted range. */
    private final class Rewriting {
        final LogCompaction log;
        final CleaningPlan plan;
        final long end;
        final Counters c;
        final BatchRewriter rewriter;
        final TransactionFilter txns;
        long start;
        RangeRewrite rewrite;
        CompactedIndex index;
        /** A run of dropped batches not yet written as a filler: [fillStart, fillEnd); fillStart -1 if none. */
        long fillStart = -1;
        long fillEnd;
        int fillEpoch;

        Rewriting(LogCompaction log, CleaningPlan plan, long end, Counters c) {
            this.log = log;
            this.plan = plan;
            this.end = end;
            this.c = c;
            this.start = plan.startOffset();
            this.txns = new TransactionFilter(plan.abortedTransactions());
            this.rewriter = new BatchRewriter(map, clock.getAsLong(), plan.config().deleteRetentionMs(),
                    plan.producerLastOffsets(), plan.producerMarkerEpochs(), txns);
        }

        void run() throws InterruptedException {
            boolean committed = false;
            try {
                long next = plan.startOffset();
                while (next < end) {
                    FetchResult fetched = await(log.read(next, end, readBytes));
                    if (fetched.batches().isEmpty()) {
                        throw new IllegalStateException(plan.tp() + ": nothing stored at " + next + " below " + end);
                    }
                    for (StreamRecordBatch sb : fetched.batches()) {
                        if (sb.lastOffsetExclusive() <= next) {
                            continue;
                        }
                        if (sb.baseOffset() < next) {
                            // The stream starts inside this batch: begin after it.
                            next = sb.lastOffsetExclusive();
                            start = next;
                            continue;
                        }
                        add(sb);
                        next = sb.lastOffsetExclusive();
                    }
                    c.read += fetched.sizeInBytes();
                    throttler.acquire(fetched.sizeInBytes());
                }
                flushFiller();
                if (rewrite != null) {
                    log.commit(rewrite, index, end, txns.emptiedAborts());
                    committed = true;
                }
            } finally {
                if (rewrite != null && !committed) {
                    rewrite.abort();
                }
            }
        }

        private void add(StreamRecordBatch sb) throws InterruptedException {
            if (rewrite == null) {
                start = sb.baseOffset();
                rewrite = log.rewrite(start, end, plan.config().segmentBytes());
                index = new CompactedIndex(start, plan.config().indexEntryBytes());
            }
            RecordBatch batch = only(plan.tp(), sb);
            BatchRewriter.Outcome o = rewriter.rewrite(batch, sb.payloadView());
            c.inRange += sb.size();
            c.recordsIn += o.recordsIn();
            c.recordsOut += o.recordsOut();
            if (o.kind() == BatchRewriter.Kind.DROP) {
                if (fillStart < 0) {
                    fillStart = sb.baseOffset();
                    fillEpoch = batch.partitionLeaderEpoch();
                }
                fillEnd = sb.lastOffsetExclusive();
                return;
            }
            flushFiller();
            write(o.bytes(), sb.baseOffset(), sb.count(), o.maxTimestamp());
        }

        private void flushFiller() throws InterruptedException {
            if (fillStart >= 0) {
                write(BatchRewriter.filler(fillStart, fillEnd, fillEpoch), fillStart, (int) (fillEnd - fillStart),
                        RecordBatch.NO_TIMESTAMP);
                fillStart = -1;
            }
        }

        private void write(ByteBuffer bytes, long base, int count, long maxTimestamp) throws InterruptedException {
            int size = bytes.remaining();
            rewrite.write(bytes, base, count);
            index.add(base, count, maxTimestamp, size);
            c.written += size;
            throttler.acquire(size);
        }
    }

    /** A plan's aborted transactions by producer: which stored batches hold aborted records. */
    static final class AbortedBatches {
        private final Map<Long, List<AbortedTxn>> byProducer = new HashMap<>();

        AbortedBatches(List<AbortedTxn> aborted) {
            for (AbortedTxn a : aborted) {
                byProducer.computeIfAbsent(a.producerId(), k -> new ArrayList<>()).add(a);
            }
        }

        /** Whether {@code batch} is a transactional batch of one of the aborted transactions. */
        boolean contains(RecordBatch batch) {
            List<AbortedTxn> txns = batch.isTransactional() ? byProducer.get(batch.producerId()) : null;
            if (txns != null) {
                for (AbortedTxn a : txns) {
                    if (a.firstOffset() <= batch.baseOffset() && batch.baseOffset() < a.lastOffset()) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /** The one Kafka batch a stored batch holds, checked against the stored offsets. */
    static RecordBatch only(TopicPartition tp, StreamRecordBatch sb) {
        Iterator<? extends RecordBatch> it = MemoryRecords.readableRecords(sb.payloadView()).batches().iterator();
        RecordBatch batch = it.hasNext() ? it.next() : null;
        if (batch == null || it.hasNext() || batch.baseOffset() != sb.baseOffset()
                || batch.lastOffset() + 1 != sb.lastOffsetExclusive()) {
            throw new IllegalStateException(tp + ": stored batch at " + sb.baseOffset()
                    + " does not hold the one record batch of its offsets");
        }
        return batch;
    }

    private static <T> T await(CompletableFuture<T> future) throws InterruptedException {
        try {
            return BlockingWait.get(future);
        } catch (CancellationException e) {
            throw new InterruptedException("cancelled");
        }
    }
}
