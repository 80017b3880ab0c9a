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
import io.aloft.stream.storage.ObjectNotFoundException;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Round trips, find() and request counts, on the file backend. */
class ObjectReaderTest {

    private static final int BLOCK = 4096;
    private static final ObjectWriterConfig CONFIG = ObjectWriterConfig.builder().blockSize(BLOCK).build();
    /** A batch of 1000 payload bytes takes 1024 in a block: three fit in a 4 KiB block. */
    private static final int BLOCK_OF_THREE = ObjectFormat.BLOCK_HEADER_SIZE + 3 * 1024;

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

    private ObjectReader upload(long objectId, List<StreamRecordBatch> batches, ObjectWriterConfig config)
            throws Exception {
        ObjectSummary summary = await(ObjectUploader.upload(storage, objectId, batches, config));
        return ObjectReader.open(storage, objectId, summary.size());
    }

    /** Stream 1: 100 batches of 10 offsets and 1000 bytes, 3 per block; stream 3: 5 small batches. */
    private ObjectReader standardObject() throws Exception {
        List<StreamRecordBatch> batches = new ArrayList<>(run(1, 0, 0, 100, 10, 1000));
        batches.addAll(run(3, 0, 0, 5, 1, 10));
        return upload(1, batches, CONFIG);
    }

    @Test
    void readBlock_oneStream_roundTripsEveryBatch() throws Exception {
        List<StreamRecordBatch> batches = run(5, 2, 1000, 50, 3, 700);
        ObjectReader reader = upload(3, batches, CONFIG);

        assertBatchesEqual(batches, readStream(reader, 5));
        assertEquals(List.of(new StreamRange(5, 2, 1000, 1150)), await(reader.streamRanges()));
        assertEquals(await(storage.size(ObjectKeys.key(3))), reader.size());
    }

    @Test
    void readBlock_manyStreams_roundTripsSmallBigAndEmptyBatches() throws Exception {
        List<StreamRecordBatch> many = run(1, 4, 0, 5000, 2, 150);                  // spans many blocks
        List<StreamRecordBatch> withBig = new ArrayList<>(run(2, 0, 0, 10, 1, 500));
        withBig.add(batch(2, 0, 10, 100, 3 * BLOCK));                                // bigger than a block
        withBig.addAll(run(2, 1, 110, 10, 1, 500));
        List<StreamRecordBatch> empty = run(7, 0, 50, 300, 1, 0);                    // empty payloads
        List<StreamRecordBatch> single = List.of(batch(9, 0, 0, 1, 1));
        List<StreamRecordBatch> all = new ArrayList<>();
        List.of(many, withBig, empty, single).forEach(all::addAll);

        ObjectReader reader = upload(4, all, CONFIG);

        assertBatchesEqual(many, readStream(reader, 1));
        assertBatchesEqual(withBig, readStream(reader, 2));
        assertBatchesEqual(empty, readStream(reader, 7));
        assertBatchesEqual(single, readStream(reader, 9));
        assertEquals(List.of(new StreamRange(1, 4, 0, 10_000), new StreamRange(2, 1, 0, 120),
                new StreamRange(7, 0, 50, 350), new StreamRange(9, 0, 0, 1)), await(reader.streamRanges()));
        List<DataBlockIndex> index = await(reader.index());
        assertTrue(index.stream().filter(e -> e.streamId() == 1).count() > 100, "stream 1 spans many blocks");
        for (DataBlockIndex e : index) {
            assertTrue(e.size() <= BLOCK || e.batchCount() == 1, "only a lone batch may exceed the target: " + e);
        }
        assertTrue(index.stream().anyMatch(e -> e.streamId() == 2 && e.batchCount() == 1 && e.size() > BLOCK));
    }

    @Test
    void readBlock_defaultConfig_blocksNearTargetSize() throws Exception {
        List<StreamRecordBatch> batches = run(1, 0, 0, 4000, 1, 1000);
        ObjectReader reader = upload(5, batches, ObjectWriterConfig.defaults());

        List<DataBlockIndex> index = await(reader.index());
        assertEquals(8, index.size()); // 4 MB in 512 KiB blocks
        assertTrue(index.get(0).size() > 500 * 1024 && index.get(0).size() <= 512 * 1024, index.get(0).toString());
        assertBatchesEqual(batches, readStream(reader, 1));
    }

    @Test
    void find_rangeStartingMidBlock_returnsThatBlockFirst() throws Exception {
        ObjectReader reader = standardObject();

        List<DataBlockIndex> found = await(reader.find(1, 45, 46, Long.MAX_VALUE));

        assertEquals(1, found.size());
        assertEquals(new DataBlockIndex(1, 30, 60, 0, BLOCK_OF_THREE, BLOCK_OF_THREE, 3), found.get(0));
        DataBlock block = await(reader.readBlock(found.get(0)));
        List<StreamRecordBatch> hit = block.batches(45, 46);
        assertEquals(1, hit.size());
        assertEquals(40, hit.get(0).baseOffset());
        assertEquals(3, block.batches(30, 60).size());
        assertEquals(0, block.batches(60, 90).size());
        assertEquals(new DataBlockKey(1, BLOCK_OF_THREE), block.key());
    }

    @Test
    void find_rangeSpanningBlocks_returnsEveryOverlappingBlockInOrder() throws Exception {
        ObjectReader reader = standardObject();

        List<DataBlockIndex> found = await(reader.find(1, 45, 125, Long.MAX_VALUE));

        assertEquals(List.of(30L, 60L, 90L, 120L), found.stream().map(DataBlockIndex::startOffset).toList());
        assertEquals(List.of(60L), await(reader.find(1, 60, 90, Long.MAX_VALUE)).stream()
                .map(DataBlockIndex::startOffset).toList());
        assertEquals(34, await(reader.find(1, 0, Long.MAX_VALUE, Long.MAX_VALUE)).size());
        assertEquals(1000, await(reader.find(1, 999, 1000, Long.MAX_VALUE)).get(0).endOffset());
    }

    @Test
    void find_rangeBeyondEndOrBeforeStart_returnsEmpty() throws Exception {
        ObjectReader reader = standardObject();

        assertEquals(List.of(), await(reader.find(1, 1000, Long.MAX_VALUE, Long.MAX_VALUE)));
        assertEquals(List.of(), await(reader.find(1, 50_000, 60_000, Long.MAX_VALUE)));
        assertEquals(List.of(), await(reader.find(1, 30, 30, Long.MAX_VALUE)));
        ObjectReader later = upload(2, run(1, 0, 500, 3, 1, 10), CONFIG);
        assertEquals(List.of(), await(later.find(1, 0, 500, Long.MAX_VALUE)));
        assertEquals(1, await(later.find(1, 0, 501, Long.MAX_VALUE)).size());
    }

    @Test
    void find_unknownStream_returnsEmpty() throws Exception {
        ObjectReader reader = standardObject();

        for (long stream : new long[] {0, 2, 4, Long.MAX_VALUE, -5}) {
            assertEquals(List.of(), await(reader.find(stream, 0, Long.MAX_VALUE, Long.MAX_VALUE)), "stream " + stream);
        }
        assertEquals(1, await(reader.find(3, 0, Long.MAX_VALUE, Long.MAX_VALUE)).size());
    }

    @Test
    void find_maxBytes_stopsOnceReachedButReturnsAtLeastOneBlock() throws Exception {
        ObjectReader reader = standardObject();

        assertEquals(1, await(reader.find(1, 0, Long.MAX_VALUE, 1)).size());
        assertEquals(1, await(reader.find(1, 0, Long.MAX_VALUE, BLOCK_OF_THREE)).size());
        assertEquals(2, await(reader.find(1, 0, Long.MAX_VALUE, BLOCK_OF_THREE + 1)).size());
        assertEquals(3, await(reader.find(1, 100, Long.MAX_VALUE, 3L * BLOCK_OF_THREE)).size());
    }

    @Test
    void find_badArguments_throwIllegalArgument() throws Exception {
        ObjectReader reader = standardObject();

        assertThrows(IllegalArgumentException.class, () -> reader.find(1, -1, 10, 100));
        assertThrows(IllegalArgumentException.class, () -> reader.find(1, 10, 9, 100));
        assertThrows(IllegalArgumentException.class, () -> reader.find(1, 0, 10, 0));
    }

    @Test
    void index_fitsTheGuess_takesOneGetAndIsFetchedOnce() throws Exception {
        ObjectReader reader = standardObject();
        long before = storage.stats().requests(Operation.GET);

        await(reader.find(1, 0, 10, 100));
        await(reader.find(3, 0, 10, 100));
        await(reader.streamRanges());

        assertEquals(1, storage.stats().requests(Operation.GET) - before);
        await(reader.readBlock(await(reader.index()).get(5)));
        assertEquals(2, storage.stats().requests(Operation.GET) - before);
    }

    @Test
    void index_largerThanTheGuess_takesTwoGetsReadingEachByteOnce() throws Exception {
        List<StreamRecordBatch> batches = new ArrayList<>();
        for (long stream = 0; stream < 2000; stream++) {
            batches.add(batch(stream, 0, stream, 1, 100)); // a block per stream: a 96 KB index
        }
        ObjectReader reader = upload(6, batches, CONFIG);
        long gets = storage.stats().requests(Operation.GET);
        long bytes = storage.stats().bytes(Operation.GET);

        List<DataBlockIndex> index = await(reader.index());

        assertEquals(2000, index.size());
        assertEquals(2, storage.stats().requests(Operation.GET) - gets);
        long indexLength = ObjectFormat.INDEX_HEADER_SIZE + 2000L * ObjectFormat.ENTRY_SIZE;
        assertTrue(indexLength > ObjectReader.INDEX_READ_SIZE_DEFAULT);
        assertEquals(indexLength + ObjectFormat.FOOTER_SIZE, storage.stats().bytes(Operation.GET) - bytes);
        assertBatchesEqual(List.of(batches.get(1234)), readStream(reader, 1234));
    }

    @Test
    void index_tinyGuess_secondGetCompletesTheIndex() throws Exception {
        List<StreamRecordBatch> batches = run(1, 0, 0, 100, 10, 1000);
        long size = await(ObjectUploader.upload(storage, 7, batches, CONFIG)).size();
        ObjectReader reader = ObjectReader.open(storage, 7, size, 1);
        long gets = storage.stats().requests(Operation.GET);

        assertEquals(34, await(reader.index()).size());
        assertEquals(2, storage.stats().requests(Operation.GET) - gets);
        assertBatchesEqual(batches, readStream(reader, 1));
    }

    @Test
    void index_concurrentFirstCalls_shareOneGet() throws Exception {
        ObjectReader reader = standardObject();
        long before = storage.stats().requests(Operation.GET);
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<CompletableFuture<List<DataBlockIndex>>>> calls = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return reader.find(1, 0, 100, Long.MAX_VALUE);
                }, pool));
            }
            start.countDown();
            for (CompletableFuture<CompletableFuture<List<DataBlockIndex>>> call : calls) {
                assertEquals(4, await(await(call)).size());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, storage.stats().requests(Operation.GET) - before);
    }

    @Test
    void index_missingObject_failsWithNotFoundAndRetriesOnTheNextCall() throws Exception {
        EncodedObject object = writeInMemory(8, run(1, 0, 0, 3, 1, 10));
        ObjectReader reader = ObjectReader.open(storage, 8, object.summary().size());

        assertInstanceOf(ObjectNotFoundException.class, failure(reader.index()));
        await(storage.put(ObjectKeys.key(8), object.data()));

        assertEquals(1, await(reader.index()).size());
    }

    @Test
    void index_emptyObject_hasNoEntries() throws Exception {
        ObjectReader reader = upload(9, List.of(), CONFIG);

        assertEquals(List.of(), await(reader.index()));
        assertEquals(List.of(), await(reader.streamRanges()));
        assertEquals(List.of(), await(reader.find(1, 0, 10, 10)));
    }

    @Test
    void readBlock_inMemoryWriterBytes_readTheSameAsUploaded() throws Exception {
        List<StreamRecordBatch> batches = run(1, 0, 0, 30, 1, 400);
        EncodedObject object = writeInMemory(10, batches);
        await(storage.put(ObjectKeys.key(10), object.data()));

        ObjectReader reader = ObjectReader.open(storage, 10, object.summary().size());

        assertBatchesEqual(batches, readStream(reader, 1));
    }

    @Test
    void readBlock_entryOutsideTheObject_throwsIllegalArgument() throws Exception {
        ObjectReader reader = standardObject();
        DataBlockIndex last = await(reader.index()).get(34);

        assertThrows(IllegalArgumentException.class, () -> reader.readBlock(
                new DataBlockIndex(3, 0, 5, 0, last.position() + 1, last.size(), 5)));
        assertThrows(IllegalArgumentException.class, () -> reader.readBlock(
                new DataBlockIndex(3, 0, 5, 0, -1, last.size(), 5)));
    }

    private static EncodedObject writeInMemory(long objectId, List<StreamRecordBatch> batches) {
        ObjectWriter writer = ObjectWriter.create(objectId, CONFIG);
        batches.forEach(writer::write);
        return writer.finish();
    }
}
