package io.aloft.stream.store;

import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;

/**
 * Encodes a {@link StreamRecordBatch} as the body of one WAL record (the WAL adds its own framing
 * and CRC), big-endian:
 *
 * <pre>
 * offset  length  field
 *      0       1  magic {@link #MAGIC}
 *      1       1  version {@link #VERSION}
 *      2       8  stream id
 *     10       8  stream epoch
 *     18       8  base offset
 *     26       4  count
 *     30       n  payload
 * </pre>
 *
 * Stateless and thread-safe.
 */
final class WalRecordCodec {
    static final byte MAGIC = 0x53; // 'S'
    static final byte VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 1;
    static final int STREAM_ID_OFFSET = 2;
    static final int EPOCH_OFFSET = 10;
    static final int BASE_OFFSET_OFFSET = 18;
    static final int COUNT_OFFSET = 26;
    static final int HEADER_SIZE = 30;

    private WalRecordCodec() {
    }

    /** A new heap buffer holding the encoded batch; the batch's payload is not consumed. */
    static ByteBuffer encode(StreamRecordBatch batch) {
        ByteBuffer buf = ByteBuffer.allocate(HEADER_SIZE + batch.size());
        buf.put(MAGIC_OFFSET, MAGIC);
        buf.put(VERSION_OFFSET, VERSION);
        buf.putLong(STREAM_ID_OFFSET, batch.streamId());
        buf.putLong(EPOCH_OFFSET, batch.epoch());
        buf.putLong(BASE_OFFSET_OFFSET, batch.baseOffset());
        buf.putInt(COUNT_OFFSET, batch.count());
        buf.put(HEADER_SIZE, batch.payload(), batch.payload().position(), batch.size());
        return buf;
    }

    /**
     * Decodes a WAL record body; the batch's payload is a view of {@code body}.
     *
     * @throws IllegalArgumentException if the body is not an encoded batch
     */
    static StreamRecordBatch decode(ByteBuffer body) {
        int at = body.position();
        if (body.remaining() < HEADER_SIZE || body.get(at + MAGIC_OFFSET) != MAGIC
                || body.get(at + VERSION_OFFSET) != VERSION) {
            throw new IllegalArgumentException("WAL record of " + body.remaining() + " bytes is not a stream batch");
        }
        ByteBuffer payload = body.slice(at + HEADER_SIZE, body.remaining() - HEADER_SIZE);
        return new StreamRecordBatch(body.getLong(at + STREAM_ID_OFFSET), body.getLong(at + EPOCH_OFFSET),
                body.getLong(at + BASE_OFFSET_OFFSET), body.getInt(at + COUNT_OFFSET), payload);
    }
}
