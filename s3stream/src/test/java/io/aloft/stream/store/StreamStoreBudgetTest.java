package io.aloft.stream.store;

import static io.aloft.stream.store.StreamStoreTest.payload;
import static io.aloft.stream.store.StreamStoreTest.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.Stream;
import io.aloft.stream.StreamStoreFullException;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.MultipartUpload;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log-cache budget: when uploads stall, appends go on into the WAL until data not yet
 * uploaded fills {@code s3.log.cache.size.bytes}, then wait, then fail with a clear, retriable
 * error; nothing acknowledged is lost and uploads resume.
 */
class StreamStoreBudgetTest {
    @TempDir
    Path dir;

    /**
     * Real file storage whose puts are held until {@link #release()}: stands in for an object store
     * that stopped answering (the outage test does the same with a stopped versitygw process).
     */
    static final class StalledStorage extends ForwardingObjectStorage {
        private final CompletableFuture<Void> gate = new CompletableFuture<>();

        StalledStorage(ObjectStorage delegate) {
            super(delegate);
        }

        void release() {
            gate.complete(null);
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            return gate.thenCompose(v -> delegate.put(key, data));
        }

        @Override
        public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
            return gate.thenCompose(v -> delegate.createMultipartUpload(key));
        }
    }

    @Test
    void stalledUploads_appendsWaitThenFailClearly_andNothingAcknowledgedIsLost() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(64 * 1024)
                .logCacheSizeBytes(256 * 1024).uploadIntervalMs(60_000).appendTimeoutMs(300).build();
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(4 << 20).build())) {
            StalledStorage storage = new StalledStorage(files);
            StreamStore store = StreamStore.open(config, wal, storage, metadata);
            Stream stream = store.openStream(store.createStream().get(), 1).get();
            List<CompletableFuture<Long>> acked = new ArrayList<>();
            int appended = 0;
            // 1000-byte batches: the budget holds at most 262 of them.
            for (; appended < 262; appended++) {
                acked.add(stream.append(payload(stream.streamId(), appended, 1000), 1));
            }
            for (CompletableFuture<Long> f : acked) {
                f.get(10, TimeUnit.SECONDS); // durable in the WAL although nothing uploaded
            }
            assertTrue(store.pendingUploadBytes() > 200_000);

            CompletableFuture<Long> waiting = stream.append(payload(stream.streamId(), appended, 1000), 1);
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
            StreamStoreFullException full = assertInstanceOf(StreamStoreFullException.class, e.getCause());
            assertTrue(full.getMessage().contains(StreamStoreConfig.APPEND_TIMEOUT_CONFIG), full.getMessage());

            CompletableFuture<Long> resumed = stream.append(payload(stream.streamId(), appended, 1000), 1);
            assertFalse(resumed.isDone(), "still waiting for room");
            storage.release(); // object storage answers again
            assertEquals(appended, resumed.get(10, TimeUnit.SECONDS));
            store.flush().get(10, TimeUnit.SECONDS);
            assertEquals(0, store.pendingUploadBytes());
            assertEquals(263, readAll(stream, 0, 1000).size());
            store.close();
        }
    }

    @Test
    void waitingAppend_sealedUploadsMakeRoom_activeBlockNotCutShort() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(64 * 1024)
                .logCacheSizeBytes(256 * 1024).uploadIntervalMs(60_000).appendTimeoutMs(60_000).build();
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(4 << 20).build())) {
            StalledStorage storage = new StalledStorage(files);
            StreamStore store = StreamStore.open(config, wal, storage, metadata);
            Stream stream = store.openStream(store.createStream().get(), 1).get();
            List<CompletableFuture<Long>> acked = new ArrayList<>();
            // 262 batches of 1000 bytes: three seals at the 64 KiB threshold (66 batches each),
            // 64 batches in the active block, and the budget full.
            for (int i = 0; i < 262; i++) {
                acked.add(stream.append(payload(stream.streamId(), i, 1000), 1));
            }
            for (CompletableFuture<Long> f : acked) {
                f.get(10, TimeUnit.SECONDS);
            }
            CompletableFuture<Long> waiting = stream.append(payload(stream.streamId(), 262, 1000), 1);
            assertFalse(waiting.isDone(), "waits for the stalled uploads");

            storage.release();
            assertEquals(262, waiting.get(10, TimeUnit.SECONDS));
            store.flush().get(10, TimeUnit.SECONDS);

            // Three seals plus the flush of the active block. Sealing the active block when the
            // append started waiting cut it short: a fifth, smaller object.
            assertEquals(4, files.stats().requests(ObjectStorageStats.Operation.PUT));
            assertEquals(263, readAll(stream, 0, 1000).size());
            store.close();
        }
    }

    /**
     * Real file storage whose puts fail (connection refused, say) until {@link #restore()}: an object
     * store that is down, as in the outage test's stopped versitygw.
     */
    static final class DownStorage extends ForwardingObjectStorage {
        private volatile boolean down = true;

        DownStorage(ObjectStorage delegate) {
            super(delegate);
        }

        void restore() {
            down = false;
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            return down ? CompletableFuture.failedFuture(new java.io.IOException("connection refused"))
                    : delegate.put(key, data);
        }

        @Override
        public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
            return down ? CompletableFuture.failedFuture(new java.io.IOException("connection refused"))
                    : delegate.createMultipartUpload(key);
        }
    }

    /**
     * Issue 14 (object-storage outage): a caller that cannot take an append back asks
     * {@link Stream#admits} first. While uploads fail it is told no once data not yet uploaded
     * reaches 7/8 of the budget, so what it was admitted for still places at once in the last
     * eighth instead of waiting past s3.append.timeout.ms and failing; once uploads succeed again it
     * is admitted again.
     */
    @Test
    void admits_uploadsFailing_refusesBeforeTheBudgetIsFull_headroomPlacesAtOnce_admitsAgainAfterUploads()
            throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(64 * 1024)
                .logCacheSizeBytes(256 * 1024).uploadIntervalMs(60_000).appendTimeoutMs(300).build();
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(4 << 20).build())) {
            DownStorage storage = new DownStorage(files);
            StreamStore store = StreamStore.open(config, wal, storage, metadata);
            Stream stream = store.openStream(store.createStream().get(), 1).get();
            assertTrue(stream.admits(1 << 30), "uploads not failing: everything is admitted (and may wait)");
            List<CompletableFuture<Long>> acked = new ArrayList<>();
            // 1000-byte batches: the first seal (64 KiB) is uploaded, and fails.
            for (int i = 0; i < 70; i++) {
                acked.add(stream.append(payload(stream.streamId(), acked.size(), 1000), 1));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (stream.admits(1 << 30)) { // polling: the upload fails on the store's thread
                assertTrue(System.nanoTime() < deadline, "the failed upload is noticed");
                Thread.sleep(10);
            }
            while (stream.admits(1000) && acked.size() < 1000) {
                acked.add(stream.append(payload(stream.streamId(), acked.size(), 1000), 1));
            }
            // 7/8 of 256 KiB holds 229 of them.
            assertEquals(229, acked.size());
            // Admitted concurrently with the last ones: the headroom takes them without waiting.
            for (int i = 0; i < 30; i++) {
                acked.add(stream.append(payload(stream.streamId(), acked.size(), 1000), 1));
            }
            for (CompletableFuture<Long> f : acked) {
                f.get(10, TimeUnit.SECONDS); // none waited: the 300 ms append timeout would have failed it
            }
            assertFalse(stream.admits(1), "nothing more is admitted while object storage is down");

            storage.restore(); // object storage answers again; the retry (1 s) uploads
            store.flush().get(10, TimeUnit.SECONDS);
            assertTrue(stream.admits(1000), "uploads made room");
            assertEquals(259, readAll(stream, 0, 1000).size());
            store.close();
        }
    }

    /**
     * Object storage that takes requests and never answers (no failure to notice): once the oldest
     * sealed block has waited half of s3.append.timeout.ms, admission is refused near the budget too.
     */
    @Test
    void admits_uploadsHeldPastHalfTheAppendTimeout_refusesNearTheBudget() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(64 * 1024)
                .logCacheSizeBytes(256 * 1024).uploadIntervalMs(60_000).appendTimeoutMs(20_000).build();
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(4 << 20).build())) {
            StalledStorage storage = new StalledStorage(files);
            StreamStore store = StreamStore.open(config, wal, storage, metadata, clock::get);
            Stream stream = store.openStream(store.createStream().get(), 1).get();
            for (int i = 0; i < 230; i++) { // past 7/8 of the budget; the first seals are held
                stream.append(payload(stream.streamId(), i, 1000), 1).get(10, TimeUnit.SECONDS);
            }
            clock.addAndGet(9_999);
            assertTrue(stream.admits(1000), "uploads behind for less than half the append timeout: admitted");
            clock.addAndGet(1);
            assertFalse(stream.admits(1000), "held for half the append timeout: refused near the budget");
            storage.release();
            store.flush().get(10, TimeUnit.SECONDS);
            assertTrue(stream.admits(1000), "uploads caught up");
            store.close();
        }
    }

    @Test
    void open_logCacheNotBelowWalCapacity_namesSetting() throws Exception {
        StreamStoreConfig config = StreamStoreConfig.builder(1).logCacheSizeBytes(8L << 20)
                .uploadThresholdBytes(1 << 20).build();
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(4 << 20).build())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StreamStore.open(config, wal, files, new MemoryStreamMetadata()));
            assertTrue(e.getMessage().startsWith(StreamStoreConfig.LOG_CACHE_SIZE_CONFIG), e.getMessage());
        }
    }
}
