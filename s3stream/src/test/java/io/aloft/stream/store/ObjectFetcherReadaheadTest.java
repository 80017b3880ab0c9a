package io.aloft.stream.store;

import static io.aloft.stream.store.StreamStoreTest.appendAll;
import static io.aloft.stream.store.StreamStoreTest.payload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Catch-up reads from object storage: sequential readers get readahead, random readers do not. */
class ObjectFetcherReadaheadTest {
    private static final int SIZE = 2000;

    @TempDir
    Path dir;
    /** The cold store's clock (wall-clock milliseconds); only tests of idle readahead move it. */
    private final java.util.concurrent.atomic.AtomicLong clockMs =
            new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());
    /** The stats of the last store {@link #writeStream} wrote through, and its upload latencies. */
    private StreamStoreStats writerStats;
    private final List<Long> writerSamples = new CopyOnWriteArrayList<>();
    /** The metadata of the last {@link #withColdStream} run. */
    private MemoryStreamMetadata metadata;

    /** Writes 2000 batches (~4 MB in 16 KiB blocks) through one store, then reopens a cold one. */
    private long writeStream(ObjectStorage storage, MemoryStreamMetadata metadata) throws Exception {
        StreamStoreConfig config = StreamStoreTest.smallConfig().uploadThresholdBytes(1 << 20).build();
        try (WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                .capacityBytes(16 << 20).build()); StreamStore store = StreamStore.open(config, wal, storage, metadata)) {
            writerStats = store.stats();
            writerStats.uploadLatencyTo(writerSamples::add);
            long id = store.createStream().get();
            Stream stream = store.openStream(id, 1).get();
            appendAll(stream, 2000, 1, SIZE);
            return id;
        }
    }

    /**
     * Writes the stream through one store, then runs {@code body} on a second, cold store (fresh
     * WAL, empty caches) over the same objects and metadata, with the stream opened at epoch 2.
     */
    private void withColdStream(ColdStreamBody body) throws Exception {
        withColdStream(StreamStoreTest.smallConfig().build(), s -> s, body);
    }

    /** As above, with the cold store's config and a wrapper around the storage it reads through. */
    private void withColdStream(StreamStoreConfig coldConfig, UnaryOperator<ObjectStorage> wrap, ColdStreamBody body)
            throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        this.metadata = metadata;
        try (ObjectStorage objects = ObjectStorages.open(dir.resolve("objects").toUri().toString())) {
            long id = writeStream(objects, metadata);
            ObjectStorage storage = wrap.apply(objects);
            try (WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("b.wal"))
                    .capacityBytes(16 << 20).build());
                    StreamStore store = StreamStore.builder(coldConfig, wal, storage, metadata).clock(clockMs::get)
                            .open()) {
                body.run(storage, store, store.openStream(id, 2).get());
            }
        }
    }

    @FunctionalInterface
    private interface ColdStreamBody {
        void run(ObjectStorage storage, StreamStore store, Stream stream) throws Exception;
    }

    @Test
    void sequentialCatchUp_laterFetchesAreServedFromPrefetchedBlocks() throws Exception {
        withColdStream((storage, store, stream) -> {
            long next = 0;
            int hits = 0;
            int fetches = 0;
            while (next < 2000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                for (StreamRecordBatch b : r.batches()) {
                    assertEquals(next, b.baseOffset());
                    assertEquals(payload(stream.streamId(), next, SIZE), b.payloadView());
                    next = b.lastOffsetExclusive();
                }
                fetches++;
                if (fetches > 2 && r.cacheHit()) {
                    hits++;
                }
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            assertTrue(fetches > 100, "many small fetches: " + fetches);
            assertEquals(fetches - 2, hits, "every fetch after the second found its blocks prefetched");
        });
    }

    @Test
    void sequentialCatchUp_countsMissesThenHitsAndReadaheadInTheStats() throws Exception {
        withColdStream((storage, store, stream) -> {
            StreamStoreStats stats = store.stats();
            long next = 0;
            int fetches = 0;
            while (next < 2000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                fetches++;
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            assertTrue(stats.blockCacheMisses() >= 1, "the first fetch of a cold store misses: " + stats);
            assertTrue(stats.blockCacheHits() >= fetches - 2, "later fetches find prefetched blocks: " + stats);
            long prefetched = store.fetcher().cachedBytes() + store.fetcher().heldBytes();
            assertTrue(stats.readaheadRequests() >= 1 && stats.readaheadBytes() >= 2000L * SIZE / 2,
                    "readahead loaded most of the stream: " + stats + ", cached and held " + prefetched);
            assertEquals(0, stats.uploads(), "the cold store uploaded nothing");
            assertEquals(1, stats.openStreams());
            assertTrue(writerStats.uploads() >= 1 && writerStats.uploadBytes() >= 2000L * SIZE,
                    "the writing store uploaded the stream: " + writerStats);
            assertEquals(writerStats.uploads(), writerSamples.size(), "one latency sample per object uploaded");
        });
    }

    /**
     * Readahead reads half its window per GET: with a 2 MiB window (a quarter of an 8 MiB block
     * cache) runs of about 1 MiB, where quarter-window chunks made twice the GETs of 512 KiB.
     */
    @Test
    void sequentialCatchUp_readsAheadInHalfWindowGets() throws Exception {
        List<Long> getSizes = new CopyOnWriteArrayList<>();
        UnaryOperator<ObjectStorage> recording = s -> new ForwardingObjectStorage(s) {
            @Override
            public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
                getSizes.add((long) java.util.Arrays.stream(partSizes).sum());
                return super.getParts(key, start, partSizes);
            }
        };
        StreamStoreConfig config = StreamStoreTest.smallConfig().blockCacheSizeBytes(8 << 20).build();
        withColdStream(config, recording, (storage, store, stream) -> {
            long next = 0;
            while (next < 2000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            long largest = getSizes.stream().mapToLong(Long::longValue).max().orElse(0);
            assertTrue(largest > 768 * 1024, "largest readahead GET " + largest + " B; all: " + getSizes);
            // Up to half a chunk more when that takes the rest of an object's run.
            assertTrue(largest <= (3 << 20) / 2 + 64 * 1024, "readahead GETs stay near half the window: " + largest);
        });
    }

    /**
     * Issue 15: held bytes are what the held blocks keep reachable, block by block, while a reader
     * moves through a multi-block readahead GET (they were counted by GET, its whole buffer alive
     * until its last block was passed), and none are left once the read ends.
     */
    @Test
    void sequentialCatchUp_heldBytesAreTheHeldBlocksBytes_andReturnToZero() throws Exception {
        StreamStoreConfig config = StreamStoreTest.smallConfig().blockCacheSizeBytes(8 << 20).build();
        withColdStream(config, s -> s, (storage, store, stream) -> {
            ObjectFetcher fetcher = store.fetcher();
            long next = 0;
            long mostHeld = 0;
            while (next < 2000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                fetcher.readaheadSettled().get(10, TimeUnit.SECONDS);
                assertEquals(fetcher.heldBlockBytes(), fetcher.heldBytes(), "after reaching " + next);
                mostHeld = Math.max(mostHeld, fetcher.heldBytes());
            }
            assertTrue(mostHeld > 512 * 1024, "readahead held blocks: " + mostHeld);
            assertEquals(0, fetcher.heldBytes(), "held after the read reached the end");
        });
    }

    @Test
    void sequentialCatchUp_abandonedByAJump_releasesEveryHeldByte() throws Exception {
        withColdStream((storage, store, stream) -> {
            ObjectFetcher fetcher = store.fetcher();
            long next = 0;
            while (next < 1000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                fetcher.readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            assertTrue(fetcher.heldBytes() > 0, "readahead was holding blocks");

            stream.fetch(10, 2000, 1).get(10, TimeUnit.SECONDS); // the reader jumps back
            fetcher.readaheadSettled().get(10, TimeUnit.SECONDS);

            assertEquals(0, fetcher.heldBytes());
        });
    }

    /**
     * Issue 15: a reader that stops fetching without jumping (gone, or caught up to the log cache)
     * left its held blocks held for good, up to the whole budget all streams share.
     */
    @Test
    void sequentialCatchUp_readerGoneIdle_releasesEveryHeldByte() throws Exception {
        withColdStream((storage, store, stream) -> {
            ObjectFetcher fetcher = store.fetcher();
            long next = 0;
            while (next < 1000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                fetcher.readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            fetcher.expireIdleReadahead();
            assertTrue(fetcher.heldBytes() > 0, "readahead holds blocks while its reader is active");

            clockMs.addAndGet(ObjectFetcher.READAHEAD_IDLE_MS + 1);
            fetcher.expireIdleReadahead();

            assertEquals(0, fetcher.heldBytes());
        });
    }

    /** Issue 15: a cached block read with a multi-block GET weighs what it keeps reachable. */
    @Test
    void bigFetch_cachesBlocksWeighedAtTheirOwnSize() throws Exception {
        withColdStream((storage, store, stream) -> {
            ObjectFetcher fetcher = store.fetcher();
            FetchResult r = stream.fetch(500, 2000, 512 * 1024).get(10, TimeUnit.SECONDS);
            assertTrue(r.batches().size() > 100, "one fetch over many blocks: " + r.batches().size());
            assertTrue(fetcher.cachedBlocks() > 4, "blocks cached: " + fetcher.cachedBlocks());

            assertEquals(fetcher.cachedBlockBytes(), fetcher.cachedBytes());
        });
    }

    /** A block read: object key, where it starts, how long. */
    private record BlockRead(String key, long start, int size) {
    }

    /** Records every block read (ObjectReader reads blocks with getParts) and the thread issuing it. */
    private static UnaryOperator<ObjectStorage> recordingBlockReads(List<BlockRead> reads, List<String> threads) {
        return s -> new ForwardingObjectStorage(s) {
            @Override
            public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
                long at = start;
                for (int size : partSizes) {
                    reads.add(new BlockRead(key, at, size));
                    at += size;
                }
                threads.add(Thread.currentThread().getName() + " " + key + "@" + start + "+" + (at - start));
                return super.getParts(key, start, partSizes);
            }
        };
    }

    /**
     * Issue 15: a fetch served from prefetched blocks completes on the reader's thread, and
     * readahead planned there issued its GETs there too (the SDK's request pipeline on the reader).
     */
    @Test
    void sequentialCatchUp_readaheadGetsAreIssuedOffTheReadersThread() throws Exception {
        List<BlockRead> reads = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        withColdStream(StreamStoreTest.smallConfig().build(), recordingBlockReads(reads, threads),
                (storage, store, stream) -> {
                    long next = 0;
                    int fetches = 0;
                    int getsBeforeThird = 0;
                    while (next < 2000) {
                        if (fetches == 2) {
                            getsBeforeThird = threads.size();
                        }
                        FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                        next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                        fetches++;
                        store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
                    }
                    // From the third fetch on every block was prefetched: each GET is readahead's.
                    List<String> readahead = threads.subList(getsBeforeThird, threads.size());
                    assertFalse(readahead.isEmpty());
                    assertEquals(List.of("aloft-stream-readahead"),
                            readahead.stream().map(t -> t.substring(0, t.indexOf(' '))).distinct().toList());
                });
    }

    /**
     * Issue 15: the window grows four times per sequential fetch, so the third fetch (the second
     * sequential one) already holds 2 MiB, the whole window of an 8 MiB block cache, where
     * doubling held 1 MiB.
     */
    @Test
    void sequentialCatchUp_windowGrowsFourTimesPerFetch() throws Exception {
        StreamStoreConfig config = StreamStoreTest.smallConfig().blockCacheSizeBytes(8 << 20).build();
        withColdStream(config, s -> s, (storage, store, stream) -> {
            long next = 0;
            for (int i = 0; i < 3; i++) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            long held = store.fetcher().heldBytes();
            assertTrue(held > (3 << 20) / 2, "held after the third fetch: " + held);
        });
    }

    /**
     * A sequential read through several objects reads every block of the stream exactly once,
     * readahead planning on from one object into the next, in GETs of at most half the window.
     */
    @Test
    void sequentialCatchUp_acrossObjects_readsEachBlockOnceInAGetPerObject() throws Exception {
        List<BlockRead> reads = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        StreamStoreConfig config = StreamStoreTest.smallConfig().blockCacheSizeBytes(16 << 20).build();
        withColdStream(config, recordingBlockReads(reads, threads), (storage, store, stream) -> {
            long next = 0;
            while (next < 2000) {
                FetchResult r = stream.fetch(next, 2000, 16 * 1024).get(10, TimeUnit.SECONDS);
                next = r.batches().get(r.batches().size() - 1).lastOffsetExclusive();
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
            }
            java.util.Set<String> objects = new java.util.TreeSet<>();
            long expected = 0;
            for (io.aloft.stream.metadata.ObjectRef ref : metadata.getObjects(stream.streamId(), 0, 2000,
                    Integer.MAX_VALUE).get()) {
                io.aloft.stream.object.ObjectReader reader = io.aloft.stream.object.ObjectReader.open(storage,
                        ref.objectId(), ref.objectSize());
                objects.add(reader.key());
                for (io.aloft.stream.object.DataBlockIndex b : reader.find(stream.streamId(), 0, 2000,
                        Long.MAX_VALUE).get()) {
                    expected += b.size();
                }
            }
            assertTrue(objects.size() >= 3, "the stream spans several objects: " + objects);
            assertEquals(reads.size(), reads.stream().distinct().count(), "a block read twice: " + reads);
            assertEquals(objects, new java.util.TreeSet<>(reads.stream().map(BlockRead::key).toList()));
            assertEquals(expected, reads.stream().mapToLong(BlockRead::size).sum(), "bytes of the stream's blocks");
            // Objects of about 1 MiB and chunks of up to 2 MiB (half the window of a 16 MiB cache):
            // one GET per object, plus the first two fetches' own and readahead's first 512 KiB.
            // Chunks running on across object boundaries made two GETs of most objects.
            assertTrue(threads.size() <= objects.size() + 3, threads.size() + " GETs for " + objects.size()
                    + " objects: " + threads);
        });
    }

    @Test
    void randomReads_triggerNoReadahead() throws Exception {
        withColdStream((storage, store, stream) -> {
            long getsBefore = storage.stats().requests(ObjectStorageStats.Operation.GET);
            int fetches = 0;
            for (long offset : new long[] {1500, 100, 900, 1900, 400, 1200}) {
                FetchResult r = stream.fetch(offset, 2000, 1).get(10, TimeUnit.SECONDS);
                assertFalse(r.batches().isEmpty());
                store.fetcher().readaheadSettled().get(10, TimeUnit.SECONDS);
                fetches++;
            }
            long gets = storage.stats().requests(ObjectStorageStats.Operation.GET) - getsBefore;
            // One block per fetch plus at most one footer+index read per object: no readahead GETs.
            assertTrue(gets <= 2L * fetches, "GETs for " + fetches + " random fetches: " + gets);
        });
    }
}
