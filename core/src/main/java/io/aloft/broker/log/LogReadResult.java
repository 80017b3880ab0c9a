package io.aloft.broker.log;

import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Batches read for a fetch, as they are stored (the first may start below the fetch offset).
 *
 * <p>Immutable.
 *
 * @param batches whole stored batches, possibly none, by reference (the fetch response sends them without a copy)
 * @param highWatermark the log end a read_uncommitted consumer may read up to
 * @param lastStableOffset the offset a read_committed consumer may read up to (see
 *     {@link PartitionLog#lastStableOffset})
 * @param logStartOffset the first offset still in the log
 * @param abortedTransactions for a read_committed read, the aborted transactions overlapping the
 *     batches returned (possibly none); null for a read_uncommitted one
 */
public record LogReadResult(BatchRecords batches, long highWatermark, long lastStableOffset, long logStartOffset,
        List<AbortedTxn> abortedTransactions) {

    public LogReadResult {
        abortedTransactions = abortedTransactions == null ? null : List.copyOf(abortedTransactions);
    }

    /** The batches in one buffer: a copy, for readers that parse them rather than send them. */
    public MemoryRecords records() {
        return batches.toMemoryRecords();
    }
}
