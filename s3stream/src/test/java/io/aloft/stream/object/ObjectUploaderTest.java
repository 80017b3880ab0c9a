package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectTestSupport.assertBatchesEqual;
import static io.aloft.stream.object.ObjectTestSupport.await;
import static io.aloft.stream.object.ObjectTestSupport.batch;
import static io.aloft.stream.object.ObjectTestSupport.failure;
import static io.aloft.stream.object.ObjectTestSupport.readStream;
import static io.aloft.stream.object.ObjectTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.storage.MultipartUpload;
import io.aloft.stream.storage.ObjectNotFoundException;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageException;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Single put below the threshold, streamed multipart above it, and failure handling; file backend. */
class ObjectUploaderTest {

    private static final int PART = (int) MultipartUpload.MIN_PART_SIZE;
    /** Multipart from 5 MiB, in 5 MiB parts: the smallest sizes S3 allows, to keep the test fast. */
    private static final ObjectWriterConfig MULTIPART = ObjectWriterConfig.builder()
            .blockSize(64 * 1024).partSize(PART).multipartThreshold(PART).build();

    @TempDir
    Path dir;

    private ObjectStorage storage;

    @BeforeEach
    void open() {
        storage = ObjectStorages.open(dir.toUri().toString());
    }

    @AfterEach
    void close() {
        storage.close();
    }

    @Test
    void finish_belowThreshold_usesOnePut() throws Exception {
        List<StreamRecordBatch> batches = run(1, 0, 0, 100, 1, 1000);

        ObjectSummary summary = await(ObjectUploader.upload(storage, 11, batches, ObjectWriterConfig.defaults()));

        ObjectStorageStats stats = storage.stats();
        assertEquals(1, stats.requests(Operation.PUT));
        assertEquals(0, stats.requests(Operation.MULTIPART_CREATE));
        assertEquals(summary.size(), await(storage.size(ObjectKeys.key(11))));
        assertEquals(List.of(new StreamRange(1, 0, 0, 100)), summary.ranges());
        assertBatchesEqual(batches, readStream(ObjectReader.open(storage, 11, summary.size()), 1));
    }

    @Test
    void encodedSizeBound_coversTheEncodedObject_forAssortedShapes() throws Exception {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 20; round++) {
            int blockSize = 1024 << random.nextInt(6);
            int streams = 1 + random.nextInt(5);
            List<StreamRecordBatch> batches = new ArrayList<>();
            long payload = 0;
            for (int s = 0; s < streams; s++) {
                // Batches up to half a block: the bound's documented domain.
                int size = 1 + random.nextInt(blockSize / 2);
                int count = 1 + random.nextInt(200);
                batches.addAll(run(s, 0, 0, count, 1, size));
                payload += (long) count * size;
            }
            ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(blockSize).build();
            long bound = ObjectUploader.encodedSizeBound(payload, batches.size(), streams, blockSize);

            ObjectUploader uploader = ObjectUploader.create(storage, round, config, bound);
            batches.forEach(uploader::write);
            ObjectSummary summary = await(uploader.finish());

            assertTrue(summary.size() <= bound, "round " + round + ": " + summary.size() + " > bound " + bound);
            assertBatchesEqual(batches.subList(0, 1), readStream(ObjectReader.open(storage, round, summary.size()), 0)
                    .subList(0, 1));
        }
    }

    @Test
    void finish_overThreshold_usesMultipartPartsAndReadsBack() throws Exception {
        List<StreamRecordBatch> small = run(1, 0, 0, 300, 1, 10_000);     // 3 MB
        List<StreamRecordBatch> big = List.of(batch(2, 1, 0, 50, 7 << 20)); // a 7 MiB batch, its own block
        List<StreamRecordBatch> tail = run(3, 0, 0, 200, 2, 10_000);        // 2 MB
        List<StreamRecordBatch> all = new ArrayList<>(small);
        all.addAll(big);
        all.addAll(tail);

        ObjectSummary summary = await(ObjectUploader.upload(storage, 12, all, MULTIPART));

        ObjectStorageStats stats = storage.stats();
        long parts = (summary.size() + PART - 1) / PART;
        assertEquals(3, parts);
        assertEquals(0, stats.requests(Operation.PUT));
        assertEquals(1, stats.requests(Operation.MULTIPART_CREATE));
        assertEquals(parts, stats.requests(Operation.MULTIPART_PART));
        assertEquals(summary.size(), stats.bytes(Operation.MULTIPART_PART));
        assertEquals(1, stats.requests(Operation.MULTIPART_COMPLETE));
        assertEquals(summary.size(), await(storage.size(ObjectKeys.key(12))));
        ObjectReader reader = ObjectReader.open(storage, 12, summary.size());
        assertBatchesEqual(small, readStream(reader, 1));
        assertBatchesEqual(big, readStream(reader, 2));
        assertBatchesEqual(tail, readStream(reader, 3));
        assertEquals(summary.ranges(), await(reader.streamRanges()));
    }

    @Test
    void write_pastThreshold_uploadsPartsBeforeFinish() throws Exception {
        FaultyObjectStorage counting = new FaultyObjectStorage(storage, 0, 2);
        ObjectUploader uploader = ObjectUploader.create(counting, 13, MULTIPART);
        List<StreamRecordBatch> batches = run(1, 0, 0, 1150, 1, 10_000); // 11.5 MB: two full parts

        batches.forEach(uploader::write);

        assertTrue(counting.partsSent.await(20, TimeUnit.SECONDS), "two parts sent while still writing");
        assertTrue(storage.stats().requests(Operation.MULTIPART_COMPLETE) == 0);
        ObjectSummary summary = await(uploader.finish());
        assertEquals(3, storage.stats().requests(Operation.MULTIPART_PART));
        assertBatchesEqual(batches, readStream(ObjectReader.open(storage, 13, summary.size()), 1));
    }

    @Test
    void finish_partUploadFails_abortsAndFailsWithTheStorageError() throws Exception {
        FaultyObjectStorage faulty = new FaultyObjectStorage(storage, 2, 0);
        ObjectUploader uploader = ObjectUploader.create(faulty, 14, MULTIPART);
        run(1, 0, 0, 1150, 1, 10_000).forEach(uploader::write);

        Throwable error = failure(uploader.finish());

        assertInstanceOf(ObjectStorageException.class, error);
        assertTrue(error.getMessage().contains("injected"), error.getMessage());
        assertEquals(1, storage.stats().requests(Operation.MULTIPART_ABORT));
        assertEquals(0, storage.stats().requests(Operation.MULTIPART_COMPLETE));
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head(ObjectKeys.key(14))));
    }

    @Test
    void abort_afterMultipartStarted_abortsUploadAndLeavesNoObject() throws Exception {
        ObjectUploader uploader = ObjectUploader.create(storage, 15, MULTIPART);
        run(1, 0, 0, 600, 1, 10_000).forEach(uploader::write);

        await(uploader.abort());
        await(uploader.abort());

        assertEquals(1, storage.stats().requests(Operation.MULTIPART_ABORT));
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head(ObjectKeys.key(15))));
        assertThrows(IllegalStateException.class, () -> uploader.write(batch(1, 0, 600, 1, 1)));
        assertThrows(IllegalStateException.class, uploader::finish);
    }

    @Test
    void abort_belowThreshold_makesNoRequest() throws Exception {
        ObjectUploader uploader = ObjectUploader.create(storage, 16, MULTIPART);
        uploader.write(batch(1, 0, 0, 1, 100));

        await(uploader.abort());

        assertEquals(0, storage.stats().totalRequests());
    }

    @Test
    void upload_outOfOrderBatches_throwsIllegalArgumentAndAborts() throws Exception {
        List<StreamRecordBatch> batches = new ArrayList<>(run(1, 0, 0, 600, 1, 10_000));
        batches.add(batch(1, 0, 0, 1, 1));

        assertThrows(IllegalArgumentException.class, () -> ObjectUploader.upload(storage, 17, batches, MULTIPART));
        assertEquals(1, storage.stats().requests(Operation.MULTIPART_CREATE)); // the order broke past 5 MiB
        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head(ObjectKeys.key(17))));
    }

    @Test
    void finish_twice_throwsIllegalState() throws Exception {
        ObjectUploader uploader = ObjectUploader.create(storage, 18, MULTIPART);
        await(uploader.finish());

        assertThrows(IllegalStateException.class, uploader::finish);
        assertThrows(IllegalStateException.class, uploader::abort);
        assertEquals(ObjectKeys.key(18), uploader.key());
    }
}
