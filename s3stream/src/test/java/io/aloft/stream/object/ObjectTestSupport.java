package io.aloft.stream.object;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Batches with checkable payloads, and helpers to read whole objects back. */
final class ObjectTestSupport {

    private ObjectTestSupport() {
    }

    /** A batch whose payload bytes are a function of (stream, offset, index), so reads can be checked. */
    static StreamRecordBatch batch(long streamId, long epoch, long baseOffset, int count, int payloadSize) {
        byte[] payload = new byte[payloadSize];
        for (int i = 0; i < payloadSize; i++) {
            payload[i] = payloadByte(streamId, baseOffset, i);
        }
        return new StreamRecordBatch(streamId, epoch, baseOffset, count, ByteBuffer.wrap(payload));
    }

    static byte payloadByte(long streamId, long baseOffset, int i) {
        return (byte) (streamId * 31 + baseOffset * 7 + i);
    }

    /** {@code n} contiguous batches of one stream, {@code count} offsets and {@code size} bytes each. */
    static List<StreamRecordBatch> run(long streamId, long epoch, long from, int n, int count, int size) {
        List<StreamRecordBatch> batches = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batches.add(batch(streamId, epoch, from + (long) i * count, count, size));
        }
        return batches;
    }

    /** Asserts the batches are equal field by field, payload bytes included. */
    static void assertBatchesEqual(List<StreamRecordBatch> expected, List<StreamRecordBatch> actual) {
        assertEquals(expected.size(), actual.size(), "batch count");
        for (int i = 0; i < expected.size(); i++) {
            StreamRecordBatch e = expected.get(i);
            StreamRecordBatch a = actual.get(i);
            String where = "batch " + i + " of stream " + e.streamId() + " at " + e.baseOffset();
            assertEquals(e.streamId(), a.streamId(), where);
            assertEquals(e.epoch(), a.epoch(), where);
            assertEquals(e.baseOffset(), a.baseOffset(), where);
            assertEquals(e.count(), a.count(), where);
            assertEquals(e.payloadView(), a.payloadView(), where);
        }
    }

    /** Every batch of {@code streamId} in the object, through find and readBlock. */
    static List<StreamRecordBatch> readStream(ObjectReader reader, long streamId) throws Exception {
        List<StreamRecordBatch> out = new ArrayList<>();
        for (DataBlockIndex entry : await(reader.find(streamId, 0, Long.MAX_VALUE, Long.MAX_VALUE))) {
            out.addAll(await(reader.readBlock(entry)).batches());
        }
        return out;
    }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** The exception a future failed with, unwrapped; fails the test if it succeeded. */
    static Throwable failure(CompletableFuture<?> future) throws InterruptedException {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            fail("future did not complete");
        }
        return fail("expected the future to fail");
    }

    static ObjectCorruptedException corruption(CompletableFuture<?> future) throws InterruptedException {
        return assertInstanceOf(ObjectCorruptedException.class, failure(future));
    }

    /** A copy of the buffer's remaining bytes. */
    static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
