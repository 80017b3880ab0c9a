package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectTestSupport.assertBatchesEqual;
import static io.aloft.stream.object.ObjectTestSupport.await;
import static io.aloft.stream.object.ObjectTestSupport.batch;
import static io.aloft.stream.object.ObjectTestSupport.bytes;
import static io.aloft.stream.object.ObjectTestSupport.readStream;
import static io.aloft.stream.object.ObjectTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.storage.MemoryObjectStorage;
import io.aloft.stream.storage.PutBody;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class StreamedObjectBodyTest {

    private static final ObjectWriterConfig CONFIG = ObjectWriterConfig.builder().blockSize(4096).build();

    /** Three streams: small batches cut into blocks, one batch that exactly fills a block, one bigger than a block. */
    private static List<StreamRecordBatch> mixed() {
        List<StreamRecordBatch> batches = new ArrayList<>(run(1, 0, 0, 50, 2, 300));
        batches.add(batch(1, 1, 100, 1, 4096 - ObjectFormat.BLOCK_HEADER_SIZE - ObjectFormat.BATCH_HEADER_SIZE));
        batches.addAll(run(4, 3, 10, 7, 1, 0));
        batches.add(batch(9, 2, 0, 5, 20_000));
        batches.addAll(run(9, 2, 5, 30, 1, 777));
        return batches;
    }

    private static byte[] wholeBuffer(long objectId, List<StreamRecordBatch> batches, ObjectWriterConfig config) {
        ObjectWriter writer = ObjectWriter.create(objectId, config);
        batches.forEach(writer::write);
        return bytes(writer.finish().data());
    }

    /** Reads one pass to its end, checking each chunk's offset against what the throttle was asked. */
    private static byte[] readPass(PutBody body) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PutBody.Pass pass = body.open()) {
            ByteBuffer chunk;
            while ((chunk = await(pass.next())) != null) {
                assertTrue(chunk.hasRemaining(), "empty chunk");
                out.write(bytes(chunk));
            }
        }
        return out.toByteArray();
    }

    @Test
    void open_readToEnd_bytesIdenticalToWholeBufferEncoding() throws Exception {
        List<StreamRecordBatch> batches = mixed();
        StreamedObjectBody body = StreamedObjectBody.of(7, batches, CONFIG, UploadThrottle.NONE);

        byte[] streamed = readPass(body);

        assertArrayEquals(wholeBuffer(7, batches, CONFIG), streamed);
        assertEquals(streamed.length, body.length());
    }

    @Test
    void length_randomBatchesAndBlockSizes_isExactlyTheEncodedSize() throws Exception {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(1024 + random.nextInt(8192)).build();
            List<StreamRecordBatch> batches = new ArrayList<>();
            long streamId = 0;
            for (int s = random.nextInt(4); s >= 0; s--) {
                streamId += 1 + random.nextInt(3);
                long offset = random.nextInt(100);
                for (int b = random.nextInt(40); b >= 0; b--) {
                    int count = 1 + random.nextInt(3);
                    int size = random.nextInt(10) == 0 ? random.nextInt(20_000) : random.nextInt(1500);
                    batches.add(batch(streamId, 1, offset, count, size));
                    offset += count;
                }
            }
            StreamedObjectBody body = StreamedObjectBody.of(round, batches, config, UploadThrottle.NONE);
            ObjectWriter writer = ObjectWriter.create(round, config);
            batches.forEach(writer::write);
            EncodedObject whole = writer.finish();

            assertEquals(whole.summary(), body.summary(), "round " + round);
            assertArrayEquals(bytes(whole.data()), readPass(body), "round " + round);
        }
    }

    @Test
    void open_secondPass_encodesTheSameBytesAgain() throws Exception {
        StreamedObjectBody body = StreamedObjectBody.of(3, mixed(), CONFIG, UploadThrottle.NONE);
        PutBody.Pass abandoned = body.open();
        await(abandoned.next());
        await(abandoned.next());
        abandoned.close(); // a failed attempt

        assertArrayEquals(wholeBuffer(3, mixed(), CONFIG), readPass(body));
    }

    @Test
    void next_afterClose_fails() {
        PutBody.Pass pass = StreamedObjectBody.of(3, mixed(), CONFIG, UploadThrottle.NONE).open();
        pass.close();

        assertTrue(pass.next().isCompletedExceptionally());
    }

    @Test
    void next_chunksAreBlocksNotTheObject() throws Exception {
        StreamedObjectBody body = StreamedObjectBody.of(3, run(1, 0, 0, 400, 1, 1000), CONFIG, UploadThrottle.NONE);
        List<Integer> sizes = new ArrayList<>();
        try (PutBody.Pass pass = body.open()) {
            ByteBuffer chunk;
            while ((chunk = await(pass.next())) != null) {
                sizes.add(chunk.remaining());
            }
        }
        assertTrue(sizes.size() > 100, sizes.size() + " chunks");
        // Every data block is a chunk of its own; the last chunk is the index and footer.
        for (int size : sizes.subList(0, sizes.size() - 1)) {
            assertTrue(size <= CONFIG.blockSize(), size + " bytes in one chunk");
        }
    }

    @Test
    void next_asksTheThrottleForEachChunkInOrder() throws Exception {
        List<long[]> asked = new ArrayList<>();
        StreamedObjectBody body = StreamedObjectBody.of(3, mixed(), CONFIG, (offset, bytes) -> {
            asked.add(new long[] {offset, bytes});
            return CompletableFuture.completedFuture(null);
        });

        readPass(body);
        readPass(body);

        long expected = 0;
        for (long[] a : asked) {
            if (a[0] == 0) {
                expected = 0; // the second pass starts over
            }
            assertEquals(expected, a[0]);
            expected += a[1];
        }
        assertEquals(body.length(), expected);
    }

    @Test
    void next_throttleNotYetAdmitting_holdsTheChunkBack() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        StreamedObjectBody body = StreamedObjectBody.of(3, mixed(), CONFIG, (offset, bytes) -> gate);
        try (PutBody.Pass pass = body.open()) {
            CompletableFuture<ByteBuffer> first = pass.next();

            assertTrue(!first.isDone());
            gate.complete(null);
            assertTrue(await(first).hasRemaining());
        }
    }

    @Test
    void of_outOfOrderBatches_throwsBeforeAnythingIsSent() {
        List<StreamRecordBatch> gap = List.of(batch(1, 0, 0, 1, 10), batch(1, 0, 5, 1, 10));

        assertThrows(IllegalArgumentException.class, () -> StreamedObjectBody.of(1, gap, CONFIG, UploadThrottle.NONE));
    }

    @Test
    void upload_toStorage_readsBackEveryBatch() throws Exception {
        MemoryObjectStorage storage = new MemoryObjectStorage();
        List<StreamRecordBatch> batches = mixed();

        ObjectSummary summary = await(StreamedObjectBody.upload(storage, 11, batches, CONFIG, UploadThrottle.NONE));

        ObjectReader reader = ObjectReader.open(storage, 11, summary.size());
        assertBatchesEqual(batches.stream().filter(b -> b.streamId() == 9).toList(), readStream(reader, 9));
        assertEquals(1, storage.stats().requests(io.aloft.stream.storage.ObjectStorageStats.Operation.PUT));
    }

    @Test
    void open_noBatches_isAnEmptyObject() throws Exception {
        StreamedObjectBody body = StreamedObjectBody.of(2, List.of(), CONFIG, UploadThrottle.NONE);

        assertArrayEquals(wholeBuffer(2, List.of(), CONFIG), readPass(body));
        try (PutBody.Pass pass = body.open()) {
            await(pass.next());
            assertNull(await(pass.next()));
        }
    }
}
