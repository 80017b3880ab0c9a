package io.aloft.stream;

import java.util.List;

/**
 * Batches returned by {@link Stream#fetch}, in offset order and contiguous.
 *
 * @param batches the batches; payloads are read-only views the caller may keep
 * @param cacheHit whether every batch came from memory (the log cache or block cache) rather
 *     than a read from object storage
 */
public record FetchResult(List<StreamRecordBatch> batches, boolean cacheHit) {
    public FetchResult {
        batches = List.copyOf(batches);
    }

    public int sizeInBytes() {
        int size = 0;
        for (StreamRecordBatch b : batches) {
            size += b.size();
        }
        return size;
    }
}
