package io.aloft.broker.log;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Rebuilds a partition's state when it is opened: applies the checkpoints of the state stream in
 * order, then replays the batches the records stream holds past the last checkpoint (at most
 * about {@link PartitionLog#CHECKPOINT_INTERVAL_BYTES}, plus whatever a crash left unchecked):
 * time index, producer state (open transactions included), aborted transactions, and the leader
 * epoch each batch was stamped with. Everything loaded is durable, so every transaction that has
 * a marker is decided; the open ones are registered with the {@link TransactionIndex} at the end.
 *
 * <p>Confined to the open's future chain; used once.
 */
final class PartitionLogLoader {
    /** Bytes read per fetch while loading. */
    static final int LOAD_FETCH_BYTES = 1 << 20;

    /** What a loaded partition starts from. */
    record Loaded(LogIndex index, ProducerStateManager producers, LeaderEpochCache epochs, CleanerState cleaner,
            TransactionIndex txns, long logStartOffset, long endOffset) {
    }

    private PartitionLogLoader() {
    }

    static CompletableFuture<Loaded> load(TopicPartition tp, Stream records, Stream state, LogConfig config,
            long nowMs) {
        LogIndex index = new LogIndex(records.startOffset());
        ProducerStateManager producers = new ProducerStateManager();
        LeaderEpochCache epochs = new LeaderEpochCache();
        CleanerState cleaner = new CleanerState();
        TransactionIndex txns = new TransactionIndex();
        long[] logStart = {records.startOffset()};
        CompletableFuture<Void> checkpoints = readAll(state, state.startOffset(),
                b -> logStart[0] = Checkpoint.apply(b.payloadView(), index, producers, epochs, cleaner, txns));
        return checkpoints.thenCompose(v -> {
            long end = records.confirmOffset();
            if (index.endOffset() > end) {
                throw new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + ": a checkpoint covers offsets up to "
                        + index.endOffset() + " but the records stream ends at " + end);
            }
            // Data below the records stream's start is gone; so are index entries for it.
            index.truncateHead(records.startOffset());
            int interval = config.indexEntryBytes();
            return readAll(records, index.endOffset(), b -> {
                if (b.baseOffset() < index.endOffset()) {
                    return; // the first fetched batch may begin before the requested offset
                }
                RecordBatch batch = onlyBatch(tp, b);
                index.add(b.baseOffset(), b.count(), batch.maxTimestamp(), b.size(), interval);
                producers.replay(batch, txns);
                epochs.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
            }).thenCompose(x -> rebuildCompactedHead(tp, records, index, cleaner, config)).thenApply(x -> {
                long start = Math.max(logStart[0], records.startOffset());
                index.truncateHead(start);
                epochs.truncateFromStart(start);
                producers.expire(nowMs, config.producerIdExpirationMs());
                producers.openTransactions().forEach(txns::begin);
                txns.truncateHead(start);
                return new Loaded(index, producers, epochs, cleaner, txns, start, end);
            });
        });
    }

    /**
     * After a crash while a compaction was being committed (see {@link LogCompaction}), replaces the
     * time index below the compacted range's end with entries read from the data in force, old or
     * new. Nothing to do otherwise.
     */
    private static CompletableFuture<Void> rebuildCompactedHead(TopicPartition tp, Stream records, LogIndex index,
            CleanerState cleaner, LogConfig config) {
        long end = cleaner.pendingEnd;
        cleaner.pendingEnd = -1;
        if (end <= records.startOffset()) {
            return CompletableFuture.completedFuture(null);
        }
        LogIndex[] rebuilt = new LogIndex[1];
        return readRange(records, records.startOffset(), end, b -> {
            if (rebuilt[0] == null) {
                rebuilt[0] = new LogIndex(b.baseOffset());
            }
            if (b.baseOffset() >= rebuilt[0].endOffset() && b.baseOffset() < end) {
                RecordBatch batch = onlyBatch(tp, b);
                rebuilt[0].add(b.baseOffset(), b.count(), batch.maxTimestamp(), b.size(), config.indexEntryBytes());
            }
        }).thenRun(() -> {
            if (rebuilt[0] != null && rebuilt[0].endOffset() == end) {
                index.replaceHead(rebuilt[0], end);
            }
        });
    }

    /** A stored batch: exactly one Kafka record batch per stream batch, as {@link PartitionLog} appends them. */
    static RecordBatch onlyBatch(TopicPartition tp, StreamRecordBatch b) {
        RecordBatch found = null;
        for (RecordBatch batch : MemoryRecords.readableRecords(b.payloadView()).batches()) {
            if (found != null) {
                throw new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + ": stream batch at "
                        + b.baseOffset() + " holds more than one record batch");
            }
            found = batch;
        }
        if (found == null || found.baseOffset() != b.baseOffset() || found.lastOffset() + 1 != b.lastOffsetExclusive()) {
            throw new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + ": stream batch at " + b.baseOffset()
                    + " does not hold the record batch for its offsets");
        }
        return found;
    }

    /** Feeds every batch from {@code from} to the stream's confirmed end to {@code sink}, in order. */
    static CompletableFuture<Void> readAll(Stream stream, long from, Consumer<StreamRecordBatch> sink) {
        return readRange(stream, from, stream.confirmOffset(), sink);
    }

    /** Feeds every batch from the one holding {@code from} towards {@code end} to {@code sink}, in order. */
    static CompletableFuture<Void> readRange(Stream stream, long from, long end, Consumer<StreamRecordBatch> sink) {
        if (from >= end) {
            return CompletableFuture.completedFuture(null);
        }
        return stream.fetch(from, end, LOAD_FETCH_BYTES).thenCompose((FetchResult r) -> {
            if (r.batches().isEmpty()) {
                return CompletableFuture.failedFuture(new PartitionLogException(Errors.KAFKA_STORAGE_ERROR,
                        "stream " + stream.streamId() + " returned nothing at " + from + " below its end " + end));
            }
            r.batches().forEach(sink);
            return readRange(stream, r.batches().get(r.batches().size() - 1).lastOffsetExclusive(), end, sink);
        });
    }
}
