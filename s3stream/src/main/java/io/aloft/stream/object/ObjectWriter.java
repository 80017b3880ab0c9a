package io.aloft.stream.object;

import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;

/**
 * Encodes one object in memory (layout: {@link ObjectFormat}). For objects on their way to
 * storage prefer {@link ObjectUploader}, which streams big objects out in parts instead of
 * holding them whole, or {@link StreamedObjectBody} when all the batches are at hand.
 *
 * <p>Batches go in (stream id, offset) order: streams in ascending id order, each stream's
 * batches contiguous (each starts where the previous ended) and with epochs that never decrease.
 *
 * <p><b>Thread-safety:</b> not thread-safe; confine to one thread or synchronize externally.
 *
 * <p><b>Buffers:</b> {@link #write} copies the payload before returning, so the caller keeps
 * ownership of the batch. The bytes returned by {@link #finish()} belong to the caller.
 */
public final class ObjectWriter {

    private static final int INITIAL_CAPACITY = 64 * 1024;

    private final ObjectEncoder encoder;
    private ByteBuffer out = ByteBuffer.allocate(INITIAL_CAPACITY);

    private ObjectWriter(long objectId, ObjectWriterConfig config) {
        this.encoder = new ObjectEncoder(objectId, config, this::append);
    }

    /**
     * @throws IllegalArgumentException if {@code objectId} is negative
     */
    public static ObjectWriter create(long objectId, ObjectWriterConfig config) {
        return new ObjectWriter(objectId, config);
    }

    public long objectId() {
        return encoder.objectId();
    }

    /**
     * Adds a batch.
     *
     * @throws IllegalArgumentException if the batch breaks the order described above (a gap, an
     *     overlap, a stream id lower than the previous one, a lower epoch); nothing is written
     * @throws IllegalStateException after {@link #finish()}
     */
    public void write(StreamRecordBatch batch) {
        encoder.write(batch);
    }

    /** Bytes encoded so far, not counting the index and footer that {@link #finish()} adds. */
    public long size() {
        return encoder.size();
    }

    /**
     * Ends the object. An object without batches is valid: an empty index and the footer.
     *
     * @throws IllegalStateException if called twice
     */
    public EncodedObject finish() {
        ObjectSummary summary = encoder.finish();
        ByteBuffer data = out.flip();
        out = null;
        return new EncodedObject(summary, data);
    }

    private void append(ByteBuffer bytes) {
        if (out.remaining() < bytes.remaining()) {
            long needed = (long) out.position() + bytes.remaining();
            long capacity = Math.max(needed, 2L * out.capacity());
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("object " + encoder.objectId()
                        + " would reach 2 GiB in memory; use ObjectUploader for objects this big");
            }
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(capacity, Integer.MAX_VALUE - 8));
            bigger.put(out.flip());
            out = bigger;
        }
        out.put(bytes);
    }
}
