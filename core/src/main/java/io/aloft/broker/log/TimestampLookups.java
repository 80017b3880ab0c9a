package io.aloft.broker.log;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * ListOffsets by timestamp and MAX_TIMESTAMP for a {@link PartitionLog}: the time index narrows
 * the search (under the log's lock), then the batches are scanned. Over compacted data the index
 * holds the largest timestamp of what is left, and a scan goes on past an entry that no longer
 * holds the target, so the answer is the first remaining record that reaches it.
 *
 * <p>Stateless.
 */
final class TimestampLookups {
    private TimestampLookups() {
    }

    /**
     * ListOffsets by timestamp: the first record at or above the log start whose timestamp is at
     * least {@code timestampMs}, found through the time index and one scan of the batches from the
     * first index entry that reaches the timestamp. Empty when no durable record does.
     */
    static CompletableFuture<Optional<TimestampOffset>> offsetForTimestamp(PartitionLog log, long timestampMs) {
        long from;
        long start;
        long hw = log.highWatermark();
        synchronized (log.lock()) {
            LogIndex index = log.index();
            int i = index.firstAtLeast(timestampMs, 0);
            if (i < 0 || index.base(i) >= hw) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            start = log.logStartOffset();
            from = Math.max(index.base(i), start);
        }
        TimestampOffset[] found = new TimestampOffset[1];
        return StoredRecords.scan(log.topicPartition(), log.records(), from, hw, new StoredRecords.Visitor() {
            @Override
            public boolean wants(RecordBatch batch) {
                return batch.maxTimestamp() >= timestampMs && batch.lastOffset() >= start;
            }

            @Override
            public boolean visit(RecordBatch batch, Record r) {
                if (r.offset() >= start && r.timestamp() >= timestampMs) {
                    found[0] = new TimestampOffset(r.timestamp(), r.offset(), batch.partitionLeaderEpoch());
                    return true;
                }
                return false;
            }
        }).thenApply(v -> Optional.ofNullable(found[0]));
    }

    /**
     * ListOffsets MAX_TIMESTAMP: the first record with the largest timestamp at or above the log
     * start (found through the index, then one entry's batches). Empty for an empty log.
     */
    static CompletableFuture<Optional<TimestampOffset>> maxTimestamp(PartitionLog log) {
        long from;
        long to;
        long start;
        long hw = log.highWatermark();
        synchronized (log.lock()) {
            LogIndex index = log.index();
            int best = -1;
            for (int i = 0; i < index.size() && index.base(i) < hw; i++) {
                if (best < 0 || index.maxTimestamp(i) > index.maxTimestamp(best)) {
                    best = i;
                }
            }
            if (best < 0) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            start = log.logStartOffset();
            from = Math.max(index.base(best), start);
            to = Math.min(index.end(best), hw);
        }
        TimestampOffset[] found = new TimestampOffset[1];
        return StoredRecords.scan(log.topicPartition(), log.records(), from, to, new StoredRecords.Visitor() {
            @Override
            public boolean wants(RecordBatch batch) {
                return batch.lastOffset() >= start;
            }

            @Override
            public boolean visit(RecordBatch batch, Record r) {
                if (r.offset() >= start && (found[0] == null || r.timestamp() > found[0].timestamp())) {
                    found[0] = new TimestampOffset(r.timestamp(), r.offset(), batch.partitionLeaderEpoch());
                }
                return false;
            }
        }).thenApply(v -> Optional.ofNullable(found[0]));
    }
}
