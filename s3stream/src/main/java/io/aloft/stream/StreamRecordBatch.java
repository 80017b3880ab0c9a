package io.aloft.stream;

import java.nio.ByteBuffer;

/**
 * One appended unit of a stream: an opaque payload (for the broker, a Kafka record batch) that
 * takes {@code count} consecutive logical offsets starting at {@code baseOffset}.
 *
 * <p>Immutable. The payload buffer is shared, never modified: readers take duplicates.
 *
 * @param streamId the stream the batch belongs to
 * @param epoch the stream epoch of the owner that appended it
 * @param baseOffset first logical offset of the batch
 * @param count number of offsets the batch takes, at least 1
 * @param payload the batch's bytes (read-only view; position 0 to limit)
 */
public record StreamRecordBatch(long streamId, long epoch, long baseOffset, int count, ByteBuffer payload) {
    public StreamRecordBatch {
        if (count < 1) {
            throw new IllegalArgumentException("a batch takes at least one offset, got " + count);
        }
        if (baseOffset < 0) {
            throw new IllegalArgumentException("negative base offset " + baseOffset);
        }
        payload = payload.asReadOnlyBuffer();
    }

    /** Offset just past the batch. */
    public long lastOffsetExclusive() {
        return baseOffset + count;
    }

    /** Payload size in bytes. */
    public int size() {
        return payload.remaining();
    }

    /** A fresh read-only view of the payload, for the caller to consume. */
    public ByteBuffer payloadView() {
        return payload.duplicate();
    }
}
