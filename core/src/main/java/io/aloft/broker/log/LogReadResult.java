package io.aloft.broker.log;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Batches read for a fetch, as they are stored (the first may start below the fetch offset).
 *
 * <p>Immutable; the records' buffer belongs to the caller.
 *
 * @param records whole stored batches, possibly none
 * @param highWatermark the log end a consumer may read up to
 * @param logStartOffset the first offset still in the log
 */
public record LogReadResult(MemoryRecords records, long highWatermark, long logStartOffset) {
}
