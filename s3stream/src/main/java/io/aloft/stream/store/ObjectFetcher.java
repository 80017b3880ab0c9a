package io.aloft.stream.store;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.object.DataBlock;
import io.aloft.stream.object.DataBlockIndex;
import io.aloft.stream.object.DataBlockKey;
import io.aloft.stream.object.ObjectReader;
import io.aloft.stream.storage.ObjectStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a stream's committed data from object storage: finds the objects through metadata, reads
 * each object's footer and index once (readers are cached), and its data blocks through a block
 * cache weighed by bytes, so repeated and concurrent catch-up reads of the same block cost one GET.
 *
 * <p>Thread-safe.
 */
final class ObjectFetcher {
    private static final int OBJECTS_PER_LOOKUP = 8;

    private final ObjectStorage storage;
    private final StreamMetadata metadata;
    private final Cache<Long, ObjectReader> readers;
    private final AsyncCache<DataBlockKey, DataBlock> blocks;

    ObjectFetcher(ObjectStorage storage, StreamMetadata metadata, long blockCacheBytes) {
        this.storage = storage;
        this.metadata = metadata;
        this.readers = Caffeine.newBuilder().maximumSize(10_000).build();
        this.blocks = Caffeine.newBuilder()
                .maximumWeight(blockCacheBytes)
                .<DataBlockKey, DataBlock>weigher((key, block) -> block.size())
                .buildAsync();
    }

    /** Blocks currently cached, for tests and metrics. */
    long cachedBlocks() {
        return blocks.synchronous().estimatedSize();
    }

    /**
     * Reads batches of {@code streamId} from the one containing {@code from} towards {@code to},
     * up to {@code maxBytes} (at least one batch). Returns fewer batches, never a gap.
     */
    CompletableFuture<List<StreamRecordBatch>> fetch(long streamId, long from, long to, int maxBytes) {
        List<StreamRecordBatch> out = new ArrayList<>();
        return fetchInto(out, streamId, from, to, maxBytes).thenApply(v -> out);
    }

    private CompletableFuture<Void> fetchInto(List<StreamRecordBatch> out, long streamId, long from, long to,
            int maxBytes) {
        return metadata.getObjects(streamId, from, to, OBJECTS_PER_LOOKUP).thenCompose(refs -> {
            if (refs.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return readObjects(out, streamId, refs, 0, from, to, maxBytes).thenCompose(next -> {
                boolean more = refs.size() == OBJECTS_PER_LOOKUP && next < to && bytes(out) < maxBytes
                        && next > from;
                return more ? fetchInto(out, streamId, next, to, maxBytes) : CompletableFuture.completedFuture(null);
            });
        });
    }

    /** Reads objects refs[i..] in order; returns the offset reached. */
    private CompletableFuture<Long> readObjects(List<StreamRecordBatch> out, long streamId, List<ObjectRef> refs,
            int i, long next, long to, int maxBytes) {
        if (i >= refs.size() || next >= to || (!out.isEmpty() && bytes(out) >= maxBytes)) {
            return CompletableFuture.completedFuture(next);
        }
        ObjectRef ref = refs.get(i);
        if (ref.range().startOffset() > next) {
            return CompletableFuture.completedFuture(next); // a hole in metadata: stop, never skip data
        }
        ObjectReader reader = readers.get(ref.objectId(), id -> ObjectReader.open(storage, id, ref.objectSize()));
        long budget = Math.max(1, maxBytes - bytes(out));
        return reader.find(streamId, next, to, budget)
                .thenCompose(indexes -> readBlocks(out, reader, indexes, 0, next, to, maxBytes))
                .thenCompose(reached -> readObjects(out, streamId, refs, i + 1, reached, to, maxBytes));
    }

    private CompletableFuture<Long> readBlocks(List<StreamRecordBatch> out, ObjectReader reader,
            List<DataBlockIndex> indexes, int i, long next, long to, int maxBytes) {
        if (i >= indexes.size() || next >= to || (!out.isEmpty() && bytes(out) >= maxBytes)) {
            return CompletableFuture.completedFuture(next);
        }
        DataBlockIndex index = indexes.get(i);
        return blocks.get(index.key(reader.objectId()), (key, executor) -> reader.readBlock(index))
                .thenCompose(block -> {
                    long reached = next;
                    for (StreamRecordBatch b : block.batches(next, to)) {
                        if (b.lastOffsetExclusive() <= reached) {
                            continue;
                        }
                        if (b.baseOffset() > reached || (!out.isEmpty() && bytes(out) + b.size() > maxBytes)) {
                            return CompletableFuture.completedFuture(reached);
                        }
                        out.add(b);
                        reached = b.lastOffsetExclusive();
                    }
                    return readBlocks(out, reader, indexes, i + 1, reached, to, maxBytes);
                });
    }

    private static int bytes(List<StreamRecordBatch> batches) {
        int n = 0;
        for (StreamRecordBatch b : batches) {
            n += b.size();
        }
        return n;
    }
}
