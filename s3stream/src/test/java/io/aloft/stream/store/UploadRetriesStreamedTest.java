package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.cache.LogCache;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.object.DataBlockIndex;
import io.aloft.stream.object.ObjectReader;
import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.MemoryObjectStorage;
import io.aloft.stream.storage.ObjectStorageException;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.PutBody;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A seal's object goes out as one streamed PUT; a failed attempt is encoded again from the block's batches. */
class UploadRetriesStreamedTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Storage whose first streamed put reads part of a pass and then fails, as a dropped connection would. */
    private static final class FailsFirstStreamedPut extends ForwardingObjectStorage {
        final AtomicInteger streamedPuts = new AtomicInteger();
        final AtomicInteger wholePuts = new AtomicInteger();

        FailsFirstStreamedPut() {
            super(new MemoryObjectStorage());
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            wholePuts.incrementAndGet();
            return super.put(key, data);
        }

        @Override
        public CompletableFuture<Void> put(String key, PutBody body) {
            if (streamedPuts.incrementAndGet() > 1) {
                return super.put(key, body); // the default: read the pass whole, then put(key, ByteBuffer)
            }
            try (PutBody.Pass pass = body.open()) {
                for (int i = 0; i < 3; i++) {
                    pass.next().join();
                }
            }
            return CompletableFuture.failedFuture(new ObjectStorageException(Operation.PUT, key,
                    "connection reset after 3 chunks", null));
        }
    }

    private static LogCache.Block sealedBlock(List<StreamRecordBatch> batches) {
        LogCache cache = new LogCache(1L << 30, 0);
        LogCache.Block block = null;
        long wal = 0;
        for (StreamRecordBatch b : batches) {
            block = cache.put(b);
            cache.confirm(block, wal++);
        }
        assertTrue(cache.seal(1) == block);
        return block;
    }

    @Test
    void upload_streamedPutFailsHalfway_retryEncodesAgainFromTheBatches() throws Exception {
        List<StreamRecordBatch> batches = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] payload = new byte[3000];
            java.util.Arrays.fill(payload, (byte) i);
            batches.add(new StreamRecordBatch(5, 1, i, 1, ByteBuffer.wrap(payload)));
        }
        LogCache.Block block = sealedBlock(batches);
        StreamStoreConfig config = StreamStoreConfig.builder(1).objectBlockSizeBytes(16 * 1024).build();
        FailsFirstStreamedPut storage = new FailsFirstStreamedPut();
        BlockUploader uploader = new BlockUploader(config, storage, new MemoryStreamMetadata(), () -> 0L);
        UploadRetries retries = new UploadRetries(uploader, scheduler, () -> false);

        BlockUploader.Uploaded uploaded = retries.upload(block).get(30, TimeUnit.SECONDS);

        assertEquals(2, storage.streamedPuts.get(), "one failed attempt, one retry");
        assertEquals(1, storage.wholePuts.get(), "the retry's one PUT");
        ObjectReader reader = ObjectReader.open(storage, uploaded.streamSet().objectId(), uploaded.streamSet().size());
        List<StreamRecordBatch> read = new ArrayList<>();
        for (DataBlockIndex entry : reader.find(5, 0, Long.MAX_VALUE, Long.MAX_VALUE).get()) {
            read.addAll(reader.readBlock(entry).get().batches());
        }
        assertEquals(batches, read);
    }
}
