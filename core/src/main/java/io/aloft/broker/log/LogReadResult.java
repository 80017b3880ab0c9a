package io.aloft.broker.log;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Batches read for a fetch, as they are stored (the first may start below the fetch offset).
 *
 * <p>Immutable.
 *
 * @param batches whole stored batches, possibly none, by reference (the fetch response sends them without a copy)
 * @param highWatermark the log end a consumer may read up to
 * @param logStartOffset the first offset still in the log
 */
public record LogReadResult(BatchRecords batches, long highWatermark, long logStartOffset) {
    /** The batches in one buffer: a copy, for readers that parse them rather than send them. */
    public MemoryRecords records() {
        return batches.toMemoryRecords();
    }
}
