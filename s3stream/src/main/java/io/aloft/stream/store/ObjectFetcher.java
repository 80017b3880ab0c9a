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
 * blocks after it are loaded in the background, keeping a window ahead of the reader that grows
 * {@link #WINDOW_GROWTH} times with each sequential fetch (from {@link #MIN_READAHEAD} up to the
 * held budget, at most {@link #MAX_READAHEAD}) and falls back on a jump, so a catch-up reader finds its next blocks in
 * memory while a random reader costs no extra GETs. The window is planned in chunks of half of
 * it (at most {@link #MAX_CHUNK}), each one GET within one object (cut at the object's end, or
 * stretched to it when less than half a chunk would be left): the reader reads one chunk while
 * the next loads.
 *
 * <p>Prefetched blocks are <em>held</em> by the fetcher until the reader passes them, not left to
 * the block cache: its TinyLFU admission rejects a block seen once in favour of blocks already
 * read, so prefetched blocks were evicted before use and read again (~20% extra bytes). Held
 * bytes have their own budget, a quarter of {@code s3.block.cache.size.bytes}, carved out of it:
 * the cache itself gets the other three quarters, so the two together stay within the setting.
 * Held bytes are counted block by block ({@link HeldBytes}): each block owns an array of exactly its
 * size, however many blocks its GET read, so a passed block's bytes come back at once.
 *
 * <p>Readahead is planned, and its GETs issued, on one thread of the fetcher's own
 * ({@code aloft-stream-readahead}), never on a reader's: a fetch served from held blocks only
 * records how far its reader got and hands the planning over.
 *
 * <p>Thread-safe. Fetch continuations run on the storage's threads and on the fetching thread.
 */
final class ObjectFetcher implements AutoCloseable {
    private static final int OBJECTS_PER_LOOKUP = 8;
    static final long MIN_READAHEAD = 512 * 1024;
    /**
     * The window grows this many times per sequential fetch: 512 KiB, 2, 8, 32 MiB, so a catch-up
     * reader reaches the default 32 MiB window on its fourth fetch (doubling took six, and its
     * small first GETs were a fifth of the GETs of bench-stream's catch-up read).
     */
    static final int WINDOW_GROWTH = 4;
    /** A stream not fetched from for this long loses its readahead and held blocks. */
    static final long READAHEAD_IDLE_MS = 30_000;
    /** Cap on the window; it is also capped by the held budget, which it can never exceed anyway. */
    static final long MAX_READAHEAD = 64L << 20;
    /** Largest ranged GET a run of blocks is read with. */
    static final long MAX_RUN_BYTES = 8L << 20;
    /**
     * Readahead plans chunks of half the window, up to this many bytes: two GETs ahead of a
     * reader, one it is reading from and one loading. Few and big, because a GET has a fixed cost
     * (the SDK's request pipeline alone took about 1 ms of CPU per GET in bench-stream's profile)
     * that dwarfs its transfer below several MiB: ranged GETs of one object's bytes on versitygw
     * moved ~120 MiB/s at 1 MiB, ~400 at 16 MiB and ~600 at 64 MiB, with 1 to 8 in flight alike.
     * Quarter-window chunks of at most 4 MiB made twice the GETs for the same bytes.
     */
    static final long MAX_CHUNK = 16L << 20;

    private final ObjectStorage storage;
    private final StreamMetadata metadata;
    private final ObjectLookups lookups;
    private final Cache<Long, ObjectReader> readers;
    private final AsyncCache<DataBlockKey, DataBlock> blocks;
    private final long maxReadahead;
    private final StreamStoreStats stats;
    private final HeldBytes heldBytes;
    /** Plans readahead and issues its GETs, off the readers' threads. */
    private final java.util.concurrent.ExecutorService readaheadThread;
    /** Prefetched blocks not yet passed by their reader; each also sits in its stream's {@link Readahead#held}. */
    private final java.util.concurrent.ConcurrentHashMap<DataBlockKey, CompletableFuture<DataBlock>> held =
            new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Per-stream readahead state. A stream whose reader stopped fetching (gone, or moved to the
     * log cache's tail) is dropped after {@link #READAHEAD_IDLE_MS}, giving its held blocks back:
     * otherwise up to the whole held budget, shared by all streams, stayed held for a reader
     * that never comes back, and no other stream could read ahead.
     */
    private final Cache<Long, Readahead> readaheads;
    private final java.util.Set<CompletableFuture<?>> readaheadInFlight =
            java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Per-stream sequential-read state; guarded by its own monitor. */
    private static final class Readahead {
        long nextOffset;
        long window;
        /** Offset up to which blocks have been planned and requested; the next chunk starts here. */
        long prefetchedTo;
        /** Bumped on every jump, so a plan made before it is dropped. */
        long generation;
        /** A chunk is being planned (at most one at a time, since each starts where the last ended). */
        boolean planning;
        /** Bytes of {@link #held}: how far, in bytes, readahead is ahead of the reader. */
        long aheadBytes;
        /** Blocks prefetched for this stream, in offset order, until the reader passes them. */
        final java.util.ArrayDeque<Held> held = new java.util.ArrayDeque<>();

        Readahead(long reached) {
            nextOffset = reached;
            prefetchedTo = reached;
        }
    }

    private record Held(DataBlockKey key, long endOffset, int bytes, CompletableFuture<DataBlock> claim) {
    }

    /** What a fetch from objects returned, and whether it touched object storage. */
    record Fetched(List<StreamRecordBatch> batches, boolean cacheHit) {
    }

    /**
     * @param uncaught handler of the readahead thread's uncaught exceptions (null: the default)
     */
    ObjectFetcher(ObjectStorage storage, StreamMetadata metadata, long blockCacheBytes,
            Thread.UncaughtExceptionHandler uncaught, java.util.function.LongSupplier clockMs) {
        this(storage, metadata, blockCacheBytes, uncaught, clockMs, 0);
    }

    /**
     * @param uncaught handler of the readahead thread's uncaught exceptions (null: the default)
     * @param objectDeleteDelayMs {@code s3.object.delete.delay.ms}; object lookups are reused for at
     *     most half of it ({@link ObjectLookups}); 0 asks metadata every time
     */
    ObjectFetcher(ObjectStorage storage, StreamMetadata metadata, long blockCacheBytes,
            Thread.UncaughtExceptionHandler uncaught, java.util.function.LongSupplier clockMs,
            long objectDeleteDelayMs) {
        this(storage, metadata, blockCacheBytes, uncaught, clockMs, objectDeleteDelayMs, new StreamStoreStats());
    }

    /** As above, counting block-cache hits, misses and readahead into {@code stats}. */
    ObjectFetcher(ObjectStorage storage, StreamMetadata metadata, long blockCacheBytes,
            Thread.UncaughtExceptionHandler uncaught, java.util.function.LongSupplier clockMs,
            long objectDeleteDelayMs, StreamStoreStats stats) {
        this.stats = stats;
        this.lookups = new ObjectLookups(metadata, clockMs, objectDeleteDelayMs);
        this.readaheads = Caffeine.newBuilder().maximumSize(10_000)
                .expireAfterAccess(java.time.Duration.ofMillis(READAHEAD_IDLE_MS))
                .ticker(() -> clockMs.getAsLong() * 1_000_000L)
                .executor(Runnable::run) // the listener only releases bytes: run it at once
                .<Long, Readahead>removalListener((id, r, cause) -> {
                    if (r != null) {
                        synchronized (r) {
                            r.generation++; // a plan in flight for it is dropped, not held
                            releaseHeld(r, Long.MAX_VALUE);
                        }
                    }
                }).build();
        this.readaheadThread = java.util.concurrent.Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "aloft-stream-readahead");
            t.setDaemon(true);
            if (uncaught != null) {
                t.setUncaughtExceptionHandler(uncaught);
            }
            return t;
        });
        this.storage = storage;
        this.metadata = metadata;
        this.readers = Caffeine.newBuilder().maximumSize(10_000).build();
        long heldBudget = blockCacheBytes / 4;
        this.heldBytes = new HeldBytes(heldBudget);
        this.blocks = Caffeine.newBuilder()
                .maximumWeight(Math.max(1, blockCacheBytes - heldBudget))
                .<DataBlockKey, DataBlock>weigher((key, block) -> block.size())
                .buildAsync();
        this.maxReadahead = Math.min(MAX_READAHEAD, Math.max(MIN_READAHEAD, heldBudget));
    }

    /** Drops the readahead state of streams idle for {@link #READAHEAD_IDLE_MS} now (for tests). */
    void expireIdleReadahead() {
        readaheads.cleanUp();
    }

    /** Stops the readahead thread; fetches still work, without readahead. Idempotent. */
    @Override
    public void close() {
        readaheadThread.shutdownNow();
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

    /** Bytes the cache weighs its blocks at (for tests). */
    long cachedBytes() {
        return blocks.synchronous().policy().eviction().orElseThrow().weightedSize().orElseThrow();
    }

    /** Bytes of the index entries of the blocks cached: what the cache should weigh (for tests). */
    long cachedBlockBytes() {
        return blocks.synchronous().asMap().values().stream().mapToLong(b -> b.index().size()).sum();
    }

    /** Bytes the held account says are held for readers (for tests). */
    long heldBytes() {
        return heldBytes.held();
    }

    /** Bytes the prefetched blocks held now keep reachable (for tests; call once readahead settled). */
    long heldBlockBytes() {
        return held.values().stream().filter(f -> f.isDone() && !f.isCompletedExceptionally())
                .mapToLong(f -> f.join().size()).sum();
    }

    /**
     * Reads batches of {@code streamId} from the one containing {@code from} towards {@code to},
     * up to {@code maxBytes} (at least one batch). Returns fewer batches, never a gap. Each object
     * is read only within the range metadata gives it.
     *
     * <p>A range replacement (key compaction) committing between two metadata lookups of one fetch
     * switches it from the old objects to the new ones. Both hold the same offsets, and a batch of
     * the new ones either spans exactly a batch of the old ones or holds no records at all (an
     * empty batch covering removed ones), so the batches returned may then overlap only by such an
     * empty batch, which readers skip by its offsets.
     */
    CompletableFuture<Fetched> fetch(long streamId, long from, long to, int maxBytes) {
        Collected out = new Collected();
        boolean[] miss = new boolean[1];
        return fetchInto(out, miss, streamId, from, to, maxBytes).whenComplete((v, error) -> {
            if (error != null) {
                lookups.forget(streamId); // an object it named may be gone (compacted and deleted): ask again
            }
        }).thenApply(v -> {
            if (!out.isEmpty()) {
                readahead(streamId, from, out.get(out.size() - 1).lastOffsetExclusive());
            }
            return new Fetched(out, !miss[0]);
        });
    }

    /** Forgets the stream's kept object lookup (see {@link ObjectLookups#forget}). */
    void forgetLookups(long streamId) {
        lookups.forget(streamId);
    }

    /** Updates the stream's sequential state and, for a sequential reader, loads the next blocks. */
    private void readahead(long streamId, long from, long reached) {
        Readahead r = readaheads.get(streamId, id -> new Readahead(-1));
        synchronized (r) {
            if (r.nextOffset != from) { // first fetch, or a jump: no readahead until it proves sequential
                releaseHeld(r, Long.MAX_VALUE);
                r.generation++;
                r.nextOffset = reached;
                r.window = 0;
                r.prefetchedTo = reached;
                return;
            }
            r.nextOffset = reached;
            r.window = r.window == 0 ? MIN_READAHEAD : Math.min(maxReadahead, r.window * WINDOW_GROWTH);
            releaseHeld(r, reached);
        }
        // Tracked before it runs, so readaheadSettled() waits for a plan not yet started.
        CompletableFuture<Void> done = new CompletableFuture<>();
        readaheadInFlight.add(done);
        done.whenComplete((v, e) -> readaheadInFlight.remove(done));
        try {
            readaheadThread.execute(() -> planNext(streamId, r).whenComplete((v, e) -> done.complete(null)));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            done.complete(null); // closing: no more readahead
        }
    }

    /** Drops held blocks that end at or before {@code reached}. Called under r's monitor. */
    private void releaseHeld(Readahead r, long reached) {
        while (!r.held.isEmpty() && r.held.peekFirst().endOffset() <= reached) {
            Held h = r.held.pollFirst();
            r.aheadBytes -= h.bytes();
            if (held.remove(h.key(), h.claim())) {
                heldBytes.release(h.bytes());
            }
        }
    }

    /**
     * Plans and requests the next chunk of the window if the reader is less than a window from the
     * end of what is prefetched, then the chunk after it, and so on: the GETs run concurrently,
     * planning (metadata and cached indexes) one chunk after another. Completes when every chunk
     * started from here has loaded.
     */
    private CompletableFuture<Void> planNext(long streamId, Readahead r) {
        long start;
        long budget;
        long generation;
        synchronized (r) {
            generation = r.generation;
            long chunk = Math.min(MAX_CHUNK, Math.max(MIN_READAHEAD, r.window / 2));
            long room = heldBytes.room();
            // Plan only a whole chunk's worth of shortfall, so GETs stay chunk-sized.
            if (r.planning || r.window == 0 || r.window - r.aheadBytes < chunk || room < chunk) {
                return CompletableFuture.completedFuture(null);
            }
            r.planning = true;
            start = Math.max(r.prefetchedTo, r.nextOffset);
            budget = chunk;
        }
        // Every step on the readahead thread, whichever thread completed the lookup or index read
        // before it: the GETs are issued from hold(), and the SDK's request pipeline runs on the
        // issuing thread (signing, endpoint rules, interceptors: about 1 ms of CPU per GET).
        return lookups.getObjects(streamId, start, -1, OBJECTS_PER_LOOKUP)
                .thenComposeAsync(refs -> plan(streamId, refs, start, budget), readaheadThread)
                .handleAsync((planned, error) -> {
                    List<CompletableFuture<DataBlock>> loads = List.of();
                    boolean progressed = false;
                    synchronized (r) {
                        r.planning = false;
                        // A jump meanwhile (new generation) makes the plan stale: drop it.
                        if (planned != null && !planned.isEmpty() && r.generation == generation) {
                            long before = r.prefetchedTo;
                            loads = hold(r, planned);
                            progressed = r.prefetchedTo > before;
                        }
                    }
                    CompletableFuture<Void> next = progressed ? planNext(streamId, r)
                            : CompletableFuture.completedFuture(null);
                    return CompletableFuture.allOf(next,
                            CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).handle((v, e) -> null));
                }, readaheadThread)
                .thenCompose(f -> f);
    }

    /** A block chosen for prefetch and the reader of its object. */
    private record Planned(ObjectReader reader, DataBlockIndex index) {
    }

    /**
     * Picks the blocks of {@code streamId} from {@code from} for one GET: about {@code budget}
     * bytes of the first object holding them, never running on into the next object (a chunk
     * across an object boundary cost two GETs of part of a chunk each), and the rest of the
     * stream's run in that object as well when under half a budget is left (so an object does not
     * end with a GET of a few blocks). Empty at a hole in metadata, as a fetch stops there.
     */
    private CompletableFuture<List<Planned>> plan(long streamId, List<ObjectRef> refs, long from, long budget) {
        for (ObjectRef ref : refs) {
            long rangeEnd = ref.range().endOffset();
            if (from >= rangeEnd) {
                continue;
            }
            if (ref.range().startOffset() > from) {
                break;
            }
            ObjectReader reader = readers.get(ref.objectId(), id -> ObjectReader.open(storage, id, ref.objectSize()));
            return reader.find(streamId, from, rangeEnd, Long.MAX_VALUE).thenApply(indexes -> {
                long rest = 0;
                for (DataBlockIndex index : indexes) {
                    rest += index.size();
                }
                List<Planned> planned = new ArrayList<>();
                long taken = 0;
                for (DataBlockIndex index : indexes) {
                    if (taken >= budget && rest >= budget / 2) {
                        break;
                    }
                    planned.add(new Planned(reader, index));
                    taken += index.size();
                    rest -= index.size();
                }
                return planned;
            });
        }
        return CompletableFuture.completedFuture(List.of());
    }

    /**
     * Holds and requests the planned blocks that are neither cached nor held yet, one GET per run
     * of back-to-back blocks of an object, and moves {@code r.prefetchedTo} past them. Stops at
     * the first block that would take the held bytes over their budget. Called under r's monitor;
     * returns the loads started.
     */
    private List<CompletableFuture<DataBlock>> hold(Readahead r, List<Planned> planned) {
        List<CompletableFuture<DataBlock>> loads = new ArrayList<>();
        List<DataBlockIndex> run = new ArrayList<>();
        List<CompletableFuture<DataBlock>> claims = new ArrayList<>();
        ObjectReader runReader = null;
        for (Planned p : planned) {
            DataBlockKey key = p.index().key(p.reader().objectId());
            if (blocks.getIfPresent(key) != null || held.containsKey(key)) {
                r.prefetchedTo = Math.max(r.prefetchedTo, p.index().endOffset());
                continue;
            }
            DataBlockIndex last = run.isEmpty() ? null : run.get(run.size() - 1);
            if (last != null && (runReader != p.reader() || last.position() + last.size() != p.index().position())) {
                readaheadRun(runReader, run, claims);
                run = new ArrayList<>();
                claims = new ArrayList<>();
            }
            int size = p.index().size();
            if (!heldBytes.tryReserve(size)) {
                break; // over budget: the rest waits for the reader to release held runs
            }
            CompletableFuture<DataBlock> claim = new CompletableFuture<>();
            held.put(key, claim);
            claim.whenComplete((b, error) -> {
                // A failed load must not stay held: the reader's fetch would fail on it for good.
                if (error != null && held.remove(key, claim)) {
                    heldBytes.release(size);
                }
            });
            r.prefetchedTo = Math.max(r.prefetchedTo, p.index().endOffset());
            r.held.addLast(new Held(key, p.index().endOffset(), size, claim));
            r.aheadBytes += size;
            runReader = p.reader();
            run.add(p.index());
            claims.add(claim);
            loads.add(claim);
        }
        if (!run.isEmpty()) {
            readaheadRun(runReader, run, claims);
        }
        return loads;
    }

    /** {@link #readRun} for readahead, counted in the stats. */
    private void readaheadRun(ObjectReader reader, List<DataBlockIndex> run, List<CompletableFuture<DataBlock>> claims) {
        long bytes = 0;
        for (DataBlockIndex index : run) {
            bytes += index.size();
        }
        stats.recordReadahead(bytes);
        readRun(reader, run, claims);
    }

    private CompletableFuture<Void> fetchInto(Collected out, boolean[] miss, long streamId, long from,
            long to, int maxBytes) {
        return lookups.getObjects(streamId, from, to, OBJECTS_PER_LOOKUP).thenCompose(refs -> {
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
        // An object may hold bytes of the stream beyond the range metadata gives it (a range
        // replacement shrank it): read only within that range.
        long objectTo = Math.min(to, ref.range().endOffset());
        if (next >= objectTo) {
            return readObjects(out, miss, streamId, refs, i + 1, next, to, maxBytes);
        }
        ObjectReader reader = readers.get(ref.objectId(), id -> ObjectReader.open(storage, id, ref.objectSize()));
        long budget = Math.max(1, maxBytes - out.bytes);
        return reader.find(streamId, next, objectTo, budget)
                .thenCompose(indexes -> readBlocks(out, miss, reader, indexes, 0, next, objectTo, maxBytes))
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
            DataBlockKey key = index.key(reader.objectId());
            CompletableFuture<DataBlock> prefetched = held.get(key);
            if (prefetched != null) {
                stats.recordBlockCacheHit();
                out.add(prefetched);
                continue;
            }
            CompletableFuture<DataBlock> claim = new CompletableFuture<>();
            CompletableFuture<DataBlock> present = blocks.asMap().putIfAbsent(key, claim);
            if (present != null) {
                stats.recordBlockCacheHit();
                out.add(present);
                continue;
            }
            stats.recordBlockCacheMiss();
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
