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
 * <p><b>Readahead.</b> A fetch that starts where the stream's previous one ended is sequential: the
 * blocks after it are loaded into the block cache in the background, a window that doubles with
 * each sequential fetch (from {@link #MIN_READAHEAD} to {@link #MAX_READAHEAD}) and falls back on
 * a jump, so a catch-up reader finds its next blocks in memory while a random reader costs no
 * extra GETs. Readahead never runs ahead past a quarter of the block cache.
 *
 * <p>Thread-safe.
 */
final class ObjectFetcher {
    private static final int OBJECTS_PER_LOOKUP = 8;
    static final long MIN_READAHEAD = 512 * 1024;
    static final long MAX_READAHEAD = 16L << 20;
    /** Largest ranged GET a run of blocks is read with. */
    static final long MAX_RUN_BYTES = 8L << 20;

    private final ObjectStorage storage;
    private final StreamMetadata metadata;
    private final Cache<Long, ObjectReader> readers;
    private final AsyncCache<DataBlockKey, DataBlock> blocks;
    private final long maxReadahead;
    private final Cache<Long, Readahead> readaheads = Caffeine.newBuilder().maximumSize(10_000).build();
    private final java.util.Set<CompletableFuture<?>> readaheadInFlight =
            java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Per-stream sequential-read state; guarded by its own monitor. */
    private static final class Readahead {
        long nextOffset;
        long window;
        /** The next prefetch starts here, and is due once the reader passes {@link #refillAt}. */
        long prefetchedTo;
        long refillAt;
        boolean inFlight;

        Readahead(long reached) {
            nextOffset = reached;
            prefetchedTo = reached;
            refillAt = reached;
        }
    }

    /** What a fetch from objects returned, and whether it touched object storage. */
    record Fetched(List<StreamRecordBatch> batches, boolean cacheHit) {
    }

    ObjectFetcher(ObjectStorage storage, StreamMetadata metadata, long blockCacheBytes) {
        this.storage = storage;
        this.metadata = metadata;
        this.readers = Caffeine.newBuilder().maximumSize(10_000).build();
        this.blocks = Caffeine.newBuilder()
                .maximumWeight(blockCacheBytes)
                .<DataBlockKey, DataBlock>weigher((key, block) -> block.size())
                .buildAsync();
        this.maxReadahead = Math.min(MAX_READAHEAD, Math.max(MIN_READAHEAD, blockCacheBytes / 4));
    }

    /** Completes when readahead started so far has finished (for tests). */
    CompletableFuture<Void> readaheadSettled() {
        return CompletableFuture.allOf(readaheadInFlight.toArray(CompletableFuture[]::new))
                .handle((v, e) -> null);
    }

    /** Blocks currently cached, for tests and metrics. */
    long cachedBlocks() {
        return blocks.synchronous().estimatedSize();
    }

    /**
     * Reads batches of {@code streamId} from the one containing {@code from} towards {@code to},
     * up to {@code maxBytes} (at least one batch). Returns fewer batches, never a gap.
     */
    CompletableFuture<Fetched> fetch(long streamId, long from, long to, int maxBytes) {
        Collected out = new Collected();
        boolean[] miss = new boolean[1];
        return fetchInto(out, miss, streamId, from, to, maxBytes).thenApply(v -> {
            if (!out.isEmpty()) {
                readahead(streamId, from, out.get(out.size() - 1).lastOffsetExclusive());
            }
            return new Fetched(out, !miss[0]);
        });
    }

    /** Updates the stream's sequential state and, for a sequential reader, loads the next blocks. */
    private void readahead(long streamId, long from, long reached) {
        Readahead r = readaheads.get(streamId, id -> new Readahead(-1));
        long start;
        long window;
        synchronized (r) {
            if (r.nextOffset != from) { // first fetch, or a jump: no readahead until it proves sequential
                r.nextOffset = reached;
                r.window = 0;
                r.prefetchedTo = reached;
                r.refillAt = reached;
                return;
            }
            r.nextOffset = reached;
            r.window = r.window == 0 ? MIN_READAHEAD : Math.min(maxReadahead, r.window * 2);
            if (r.inFlight || reached < r.refillAt) {
                return;
            }
            r.inFlight = true;
            start = Math.max(r.prefetchedTo, reached);
            window = r.window;
        }
        CompletableFuture<Void> load = metadata.getObjects(streamId, start, -1, OBJECTS_PER_LOOKUP)
                .thenCompose(refs -> prefetch(streamId, refs, start, window))
                .handle((range, error) -> {
                    synchronized (r) {
                        r.inFlight = false;
                        if (range != null && range[1] > r.prefetchedTo) {
                            r.prefetchedTo = range[1];
                            r.refillAt = range[0]; // refill once the reader is halfway through
                        }
                    }
                    return null;
                });
        readaheadInFlight.add(load);
        load.whenComplete((v, e) -> readaheadInFlight.remove(load));
    }

    /**
     * Loads blocks of {@code streamId} from {@code from}, about {@code budget} bytes, into the block
     * cache. Returns {midpoint offset, end offset} of what it loaded.
     */
    private CompletableFuture<long[]> prefetch(long streamId, List<ObjectRef> refs, long from, long budget) {
        List<DataBlockIndex> planned = new ArrayList<>();
        List<ObjectReader> owners = new ArrayList<>();
        CompletableFuture<Void> plan = CompletableFuture.completedFuture(null);
        long[] left = {budget};
        for (ObjectRef ref : refs) {
            ObjectReader reader = readers.get(ref.objectId(), id -> ObjectReader.open(storage, id, ref.objectSize()));
            plan = plan.thenCompose(v -> left[0] <= 0 ? CompletableFuture.completedFuture(null)
                    : reader.find(streamId, from, Long.MAX_VALUE, left[0]).thenAccept(indexes -> {
                        for (DataBlockIndex index : indexes) {
                            left[0] -= index.size();
                            planned.add(index);
                            owners.add(reader);
                        }
                    }));
        }
        return plan.thenCompose(v -> {
            List<CompletableFuture<DataBlock>> loads = new ArrayList<>();
            int i = 0;
            while (i < planned.size()) { // one load per object's run of blocks
                ObjectReader reader = owners.get(i);
                int j = i;
                while (j < planned.size() && owners.get(j) == reader) {
                    j++;
                }
                loads.addAll(load(reader, planned.subList(i, j), null));
                i = j;
            }
            if (planned.isEmpty()) {
                return CompletableFuture.completedFuture(new long[] {from, from});
            }
            long mid = planned.get(planned.size() / 2).startOffset();
            long end = planned.get(planned.size() - 1).endOffset();
            return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).thenApply(x -> new long[] {mid, end});
        });
    }

    private CompletableFuture<Void> fetchInto(Collected out, boolean[] miss, long streamId, long from,
            long to, int maxBytes) {
        return metadata.getObjects(streamId, from, to, OBJECTS_PER_LOOKUP).thenCompose(refs -> {
            if (refs.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return readObjects(out, miss, streamId, refs, 0, from, to, maxBytes).thenCompose(next -> {
                boolean more = refs.size() == OBJECTS_PER_LOOKUP && next < to && out.bytes < maxBytes
                        && next > from;
                return more ? fetchInto(out, miss, streamId, next, to, maxBytes)
                        : CompletableFuture.completedFuture(null);
            });
        });
    }

    /** Reads objects refs[i..] in order; returns the offset reached. */
    private CompletableFuture<Long> readObjects(Collected out, boolean[] miss, long streamId,
            List<ObjectRef> refs, int i, long next, long to, int maxBytes) {
        if (i >= refs.size() || next >= to || (!out.isEmpty() && out.bytes >= maxBytes)) {
            return CompletableFuture.completedFuture(next);
        }
        ObjectRef ref = refs.get(i);
        if (ref.range().startOffset() > next) {
            return CompletableFuture.completedFuture(next); // a hole in metadata: stop, never skip data
        }
        ObjectReader reader = readers.get(ref.objectId(), id -> ObjectReader.open(storage, id, ref.objectSize()));
        long budget = Math.max(1, maxBytes - out.bytes);
        return reader.find(streamId, next, to, budget)
                .thenCompose(indexes -> readBlocks(out, miss, reader, indexes, 0, next, to, maxBytes))
                .thenCompose(reached -> readObjects(out, miss, streamId, refs, i + 1, reached, to, maxBytes));
    }

    private CompletableFuture<Long> readBlocks(Collected out, boolean[] miss, ObjectReader reader,
            List<DataBlockIndex> indexes, int i, long next, long to, int maxBytes) {
        // Load every block this fetch selected up front: missing runs go out as one GET each.
        List<CompletableFuture<DataBlock>> loads = load(reader, indexes, miss);
        return consume(out, loads, i, next, to, maxBytes);
    }

    private CompletableFuture<Long> consume(Collected out, List<CompletableFuture<DataBlock>> loads,
            int i, long next, long to, int maxBytes) {
        if (i >= loads.size() || next >= to || (!out.isEmpty() && out.bytes >= maxBytes)) {
            return CompletableFuture.completedFuture(next);
        }
        return loads.get(i).thenCompose(block -> {
            long reached = next;
            for (StreamRecordBatch b : block.batches(next, to)) {
                if (b.lastOffsetExclusive() <= reached) {
                    continue;
                }
                if (b.baseOffset() > reached || (!out.isEmpty() && out.bytes + b.size() > maxBytes)) {
                    return CompletableFuture.completedFuture(reached);
                }
                out.add(b);
                reached = b.lastOffsetExclusive();
            }
            return consume(out, loads, i + 1, reached, to, maxBytes);
        });
    }

    /**
     * Returns the blocks as cache futures, in order. Blocks not cached are claimed in the cache
     * (so concurrent readers share the load) and read in runs of back-to-back blocks, one ranged
     * GET per run of at most {@link #MAX_RUN_BYTES}; {@code miss[0]} is set if any was missing.
     */
    private List<CompletableFuture<DataBlock>> load(ObjectReader reader, List<DataBlockIndex> indexes,
            boolean[] miss) {
        List<CompletableFuture<DataBlock>> out = new ArrayList<>(indexes.size());
        List<DataBlockIndex> run = new ArrayList<>();
        List<CompletableFuture<DataBlock>> claims = new ArrayList<>();
        long runBytes = 0;
        for (DataBlockIndex index : indexes) {
            CompletableFuture<DataBlock> claim = new CompletableFuture<>();
            CompletableFuture<DataBlock> present = blocks.asMap().putIfAbsent(index.key(reader.objectId()), claim);
            if (present != null) {
                out.add(present);
                continue;
            }
            if (miss != null) {
                miss[0] = true;
            }
            boolean contiguous = !run.isEmpty() && run.get(run.size() - 1).position()
                    + run.get(run.size() - 1).size() == index.position();
            if (!run.isEmpty() && (!contiguous || runBytes + index.size() > MAX_RUN_BYTES)) {
                readRun(reader, run, claims);
                run = new ArrayList<>();
                claims = new ArrayList<>();
                runBytes = 0;
            }
            run.add(index);
            claims.add(claim);
            runBytes += index.size();
            out.add(claim);
        }
        if (!run.isEmpty()) {
            readRun(reader, run, claims);
        }
        return out;
    }

    private static void readRun(ObjectReader reader, List<DataBlockIndex> run, List<CompletableFuture<DataBlock>> claims) {
        CompletableFuture<List<DataBlock>> read;
        try {
            read = reader.readBlocks(run);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((loaded, error) -> {
            for (int k = 0; k < claims.size(); k++) {
                if (error != null) {
                    claims.get(k).completeExceptionally(error); // the cache drops failed entries
                } else {
                    claims.get(k).complete(loaded.get(k));
                }
            }
        });
    }

    /** Batches collected by one fetch, with their running byte count. Confined to the fetch's chain. */
    private static final class Collected extends ArrayList<StreamRecordBatch> {
        int bytes;

        @Override
        public boolean add(StreamRecordBatch batch) {
            bytes += batch.size();
            return super.add(batch);
        }
    }
}
