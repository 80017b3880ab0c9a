package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamFencedException;
import io.aloft.stream.StreamOffsetOutOfRangeException;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream store on a real WAL file and the file object-storage backend. Metadata is in memory
 * here; core's controller tests extend this class to run the same tests on the Ratis controller.
 */
class StreamStoreTest {
    @TempDir
    Path dir;

    private StreamMetadata metadata;
    private ObjectStorage storage;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        storage = ObjectStorages.open(dir.resolve("objects").toUri().toString());
        metadata = newMetadata();
    }

    /** The metadata the tests run on (called once per test, after {@code dir} is set). */
    StreamMetadata newMetadata() throws Exception {
        return new MemoryStreamMetadata();
    }

    /** Releases what {@link #newMetadata()} started, after every store is closed. */
    void closeMetadata() throws Exception {
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        storage.close();
        closeMetadata();
    }

    static StreamStoreConfig.Builder smallConfig() {
        return StreamStoreConfig.builder(1).uploadThresholdBytes(256 * 1024).logCacheSizeBytes(1 << 20)
                .uploadIntervalMs(60_000).splitThresholdBytes(128 * 1024).objectBlockSizeBytes(16 * 1024);
    }

    private WriteAheadLog openWal(String name) throws Exception {
        WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve(name))
                .capacityBytes(16 << 20).build());
        toClose.add(wal);
        return wal;
    }

    private StreamStore openStore(StreamStoreConfig config, WriteAheadLog wal) {
        StreamStore store = StreamStore.open(config, wal, storage, metadata);
        toClose.add(store);
        return store;
    }

    static ByteBuffer payload(long stream, long offset, int size) {
        byte[] bytes = new byte[size];
        String tag = stream + ":" + offset + ";";
        byte[] t = tag.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < size; i++) {
            bytes[i] = t[i % t.length];
        }
        return ByteBuffer.wrap(bytes);
    }

    /** Appends {@code n} batches of {@code count} records; returns the base offsets. */
    static List<Long> appendAll(Stream stream, int n, int count, int size) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        // Offsets follow call order even when appends wait for log-cache room (nextOffset() does
        // not move for an append that is still waiting), so count them here.
        long next = stream.nextOffset();
        for (int i = 0; i < n; i++) {
            futures.add(stream.append(payload(stream.streamId(), next, size), count));
            next += count;
        }
        List<Long> offsets = new ArrayList<>();
        for (CompletableFuture<Long> f : futures) {
            offsets.add(f.get(10, TimeUnit.SECONDS));
        }
        return offsets;
    }

    /** Reads the stream from {@code from} to its confirmed end and checks every payload. */
    static List<StreamRecordBatch> readAll(Stream stream, long from, int size) throws Exception {
        List<StreamRecordBatch> all = new ArrayList<>();
        long next = from;
        while (next < stream.confirmOffset()) {
            FetchResult r = stream.fetch(next, Long.MAX_VALUE, 64 * 1024).get(10, TimeUnit.SECONDS);
            assertFalse(r.batches().isEmpty(), "data at " + next);
            for (StreamRecordBatch b : r.batches()) {
                assertEquals(next, b.baseOffset(), "contiguous");
                assertEquals(payload(stream.streamId(), b.baseOffset(), size), b.payloadView());
                next = b.lastOffsetExclusive();
                all.add(b);
            }
        }
        return all;
    }

    @Test
    void append_thenFetch_servedFromLogCache() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        List<Long> offsets = appendAll(stream, 50, 10, 100);
        for (int i = 0; i < 50; i++) {
            assertEquals(i * 10L, offsets.get(i));
        }
        assertEquals(500, stream.confirmOffset());
        FetchResult r = stream.fetch(0, 500, 1 << 20).get(5, TimeUnit.SECONDS);
        assertTrue(r.cacheHit());
        assertEquals(50, r.batches().size());
        FetchResult mid = stream.fetch(255, 300, 1 << 20).get(5, TimeUnit.SECONDS);
        assertEquals(250, mid.batches().get(0).baseOffset(), "the batch holding the offset comes first");
        assertEquals(5, mid.batches().size());
    }

    @Test
    void fetch_maxBytes_returnsAtLeastOneBatch() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 10, 1, 1000);
        assertEquals(1, stream.fetch(0, 10, 1).get().batches().size());
        assertEquals(3, stream.fetch(0, 10, 3000).get().batches().size());
    }

    @Test
    void fetch_outsideRange_failsWithOutOfRange() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 10, 1, 10);
        ExecutionException e = assertThrows(ExecutionException.class, () -> stream.fetch(11, 20, 100).get());
        assertInstanceOf(StreamOffsetOutOfRangeException.class, e.getCause());
        assertTrue(stream.fetch(10, 20, 100).get().batches().isEmpty(), "at the end: nothing yet");
        stream.trim(5).get();
        assertEquals(5, stream.startOffset());
        e = assertThrows(ExecutionException.class, () -> stream.fetch(4, 20, 100).get());
        assertInstanceOf(StreamOffsetOutOfRangeException.class, e.getCause());
        assertEquals(0, metadata.describeStream(stream.streamId()).get().startOffset(),
                "metadata trims only committed data");
        store.flush().get(10, TimeUnit.SECONDS);
        assertEquals(5, metadata.describeStream(stream.streamId()).get().startOffset(),
                "the trim reaches metadata once the data is committed");
    }

    @Test
    void flush_uploadsAndCommitsThenTrimsWal() throws Exception {
        WriteAheadLog wal = openWal("a.wal");
        StreamStore store = openStore(smallConfig().build(), wal);
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 100, 1, 1000);
        assertTrue(wal.usedBytes() > 100_000);
        store.flush().get(10, TimeUnit.SECONDS);
        assertEquals(0, store.pendingUploadBytes());
        List<ObjectRef> objects = metadata.getObjects(stream.streamId(), 0, -1, 100).get();
        assertEquals(0, objects.get(0).range().startOffset());
        assertEquals(100, objects.get(objects.size() - 1).range().endOffset());
        assertEquals(0, wal.usedBytes(), "WAL trimmed past everything committed");
    }

    @Test
    void uploadThreshold_sealsAutomatically_andBigStreamsGetStreamObjects() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        Stream big = store.openStream(store.createStream().get(), 1).get();
        Stream small = store.openStream(store.createStream().get(), 1).get();
        for (int i = 0; i < 10; i++) {
            appendAll(big, 30, 1, 1000);
            appendAll(small, 1, 1, 100);
        }
        store.flush().get(10, TimeUnit.SECONDS);
        List<ObjectRef> bigObjects = metadata.getObjects(big.streamId(), 0, -1, 100).get();
        assertTrue(bigObjects.size() >= 1);
        assertTrue(bigObjects.stream().anyMatch(o -> o.type() == S3Object.Type.STREAM),
                "a stream above the split threshold got its own object: " + bigObjects);
        assertTrue(metadata.getObjects(small.streamId(), 0, -1, 100).get().stream()
                .allMatch(o -> o.type() == S3Object.Type.STREAM_SET));
    }

    @Test
    void upload_defaultSplitThreshold_sealIsOneObjectAndOnePut() throws Exception {
        StreamStore store = openStore(smallConfig()
                .splitThresholdBytes(StreamStoreConfig.SPLIT_THRESHOLD.defaultValue()).build(), openWal("a.wal"));
        Stream big = store.openStream(store.createStream().get(), 1).get();
        Stream small = store.openStream(store.createStream().get(), 1).get();
        long putsBefore = storage.stats().requests(io.aloft.stream.storage.ObjectStorageStats.Operation.PUT);
        // Half the seal is one stream: with the old 8 MiB-style split it would be a second object.
        appendAll(big, 100, 1, 1000);
        appendAll(small, 100, 1, 1000);
        store.flush().get(10, TimeUnit.SECONDS);

        assertEquals(1, storage.stats().requests(io.aloft.stream.storage.ObjectStorageStats.Operation.PUT)
                - putsBefore);
        List<ObjectRef> objects = metadata.getObjects(big.streamId(), 0, -1, 100).get();
        assertEquals(1, objects.size());
        assertEquals(S3Object.Type.STREAM_SET, objects.get(0).type());
        assertEquals(100, readAll(big, 0, 1000).size());
    }

    @Test
    void reopen_readsCommittedDataFromObjects() throws Exception {
        WriteAheadLog wal = openWal("a.wal");
        StreamStore store = openStore(smallConfig().build(), wal);
        long id = store.createStream().get();
        Stream stream = store.openStream(id, 1).get();
        appendAll(stream, 300, 3, 700);
        store.close();

        StreamStore second = openStore(smallConfig().build(), openWal("b.wal"));
        Stream reopened = second.openStream(id, 2).get();
        assertEquals(900, reopened.confirmOffset());
        FetchResult first = reopened.fetch(0, 900, 10_000).get(5, TimeUnit.SECONDS);
        assertFalse(first.cacheHit(), "cold read goes to object storage");
        assertEquals(300, readAll(reopened, 0, 700).size());
        // New appends continue the stream; reads cross from objects into the log cache.
        appendAll(reopened, 10, 3, 700);
        assertEquals(310, readAll(reopened, 0, 700).size());
        assertTrue(storage.stats().totalRequests() > 0);
    }

    @Test
    void catchUpRead_continuesOnTheCatchUpThreads_whileALogCacheReadAnswersAtOnce() throws Exception {
        WriteAheadLog wal = openWal("a.wal");
        StreamStore store = openStore(smallConfig().build(), wal);
        long id = store.createStream().get();
        appendAll(store.openStream(id, 1).get(), 50, 1, 700);
        store.close();

        // GETs held until the continuation is attached, so the read cannot complete before it (it would then run here).
        CompletableFuture<Void> gate = new CompletableFuture<>();
        ObjectStorage gated = new io.aloft.stream.storage.ForwardingObjectStorage(storage) {
            @Override
            public CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive) {
                return gate.thenCompose(v -> super.get(key, start, endExclusive));
            }

            @Override
            public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
                return gate.thenCompose(v -> super.getParts(key, start, partSizes));
            }
        };
        StreamStore second = StreamStore.open(smallConfig().build(), openWal("b.wal"), gated, metadata);
        toClose.add(second);
        Stream reopened = second.openStream(id, 2).get();
        CompletableFuture<String> thread = reopened.fetch(0, 50, 10_000).thenApply(r -> {
            assertFalse(r.cacheHit(), "cold: from object storage");
            return Thread.currentThread().getName();
        });
        gate.complete(null); // on this thread: the GETs complete here, their continuations must not
        String name = thread.get(5, TimeUnit.SECONDS);
        assertTrue(name.startsWith("aloft-catchup-read-"), "continued on " + name);
        appendAll(reopened, 1, 1, 700);
        CompletableFuture<FetchResult> tail = reopened.fetch(50, 51, 10_000);
        assertTrue(tail.isDone() && tail.get().cacheHit(), "a tail read is answered from the log cache at once");
    }

    @Test
    void recovery_afterCrash_commitsAcknowledgedWalRecords() throws Exception {
        StreamStoreConfig config = smallConfig().uploadThresholdBytes(1 << 20).build();
        Path walPath = dir.resolve("crash.wal");
        WalConfig walConfig = WalConfig.builder().path(walPath).capacityBytes(16 << 20).build();
        WriteAheadLog wal = BlockDeviceWal.open(walConfig);
        StreamStore crashed = StreamStore.open(config, wal, storage, metadata);
        long id = crashed.createStream().get();
        Stream stream = crashed.openStream(id, 1).get();
        appendAll(stream, 200, 2, 500); // acknowledged: durable in the WAL, nothing uploaded
        assertTrue(metadata.getObjects(id, 0, -1, 10).get().isEmpty());
        wal.close(); // the process "dies": the store never uploads

        WriteAheadLog reopenedWal = openWal("crash.wal");
        StreamStore recovered = openStore(config, reopenedWal);
        assertEquals(400, metadata.describeStream(id).get().endOffset(), "recovery committed the WAL tail");
        assertTrue(reopenedWal.usedBytes() < 8192, "and reset the WAL");
        Stream again = recovered.openStream(id, 2).get();
        assertEquals(200, readAll(again, 0, 500).size());
    }

    @Test
    void openWithHigherEpoch_fencesPreviousOwner() throws Exception {
        StreamStore nodeA = openStore(smallConfig().build(), openWal("a.wal"));
        StreamStore nodeB = openStore(StreamStoreConfig.builder(2).uploadThresholdBytes(256 * 1024)
                .logCacheSizeBytes(1 << 20).uploadIntervalMs(60_000).build(), openWal("b.wal"));
        long id = nodeA.createStream().get();
        Stream a = nodeA.openStream(id, 1).get();
        appendAll(a, 10, 1, 100);
        nodeA.flush().get(10, TimeUnit.SECONDS);
        appendAll(a, 5, 1, 100); // acknowledged by A but not uploaded when B takes over

        Stream b = nodeB.openStream(id, 2).get();
        assertEquals(10, b.nextOffset(), "the new owner continues from the committed end");
        nodeA.flush().get(10, TimeUnit.SECONDS); // A's commit is fenced: its ranges are dropped
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> a.append(payload(id, 15, 100), 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(StreamFencedException.class, e.getCause());

        appendAll(b, 5, 1, 100);
        nodeB.flush().get(10, TimeUnit.SECONDS);
        assertEquals(15, metadata.describeStream(id).get().endOffset());
        assertEquals(15, readAll(b, 0, 100).size());
    }

    @Test
    void close_uploadsStreamAndClosesItInMetadata() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        long id = store.createStream().get();
        Stream stream = store.openStream(id, 1).get();
        appendAll(stream, 20, 1, 100);
        stream.close().get(10, TimeUnit.SECONDS);
        assertEquals(20, metadata.describeStream(id).get().endOffset());
        assertEquals(io.aloft.stream.metadata.StreamInfo.State.CLOSED, metadata.describeStream(id).get().state());
        ExecutionException e = assertThrows(ExecutionException.class, () -> stream.append(payload(id, 20, 1), 1).get());
        assertInstanceOf(StreamFencedException.class, e.getCause());
    }

    @Test
    void concurrentAppends_manyStreams_eachContiguousAndReadable() throws Exception {
        StreamStore store = openStore(smallConfig().build(), openWal("a.wal"));
        int streamCount = 6;
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < streamCount; i++) {
            streams.add(store.openStream(store.createStream().get(), 1).get());
        }
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (Stream s : streams) {
            for (int t = 0; t < 2; t++) {
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 200; i++) {
                            // Payload tagged at append time: the store assigns offsets in call order.
                            CompletableFuture<Long> f;
                            synchronized (s) {
                                f = s.append(payload(s.streamId(), s.nextOffset(), 300), 1);
                            }
                            f.get(10, TimeUnit.SECONDS);
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(errors.isEmpty(), errors.toString());
        for (Stream s : streams) {
            assertEquals(400, s.confirmOffset());
            assertEquals(400, readAll(s, 0, 300).size());
        }
        store.flush().get(10, TimeUnit.SECONDS);
        for (Stream s : streams) {
            assertEquals(400, metadata.describeStream(s.streamId()).get().endOffset());
        }
    }
}
