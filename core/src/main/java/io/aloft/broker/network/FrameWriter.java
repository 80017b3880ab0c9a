package io.aloft.broker.network;

import io.aloft.broker.log.BatchRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Writes a frame of known size as a list of buffers instead of one: the fields go into small heap
 * chunks, while record batches and sets of at least {@link #REFERENCE_THRESHOLD} bytes (each batch
 * of a {@link BatchRecords}, a whole {@link MemoryRecords}) are not copied but sent as the buffers
 * they are. Encoding a fetch response therefore costs its fields, not its bytes: copying every
 * fetched byte into one response array (allocated per response, up to fetch.max.bytes) was the
 * fetch path's second copy, made on the connection's event loop.
 *
 * <p>Confined to the thread encoding one response.
 */
final class FrameWriter implements Writable {
    /** Smaller record sets are copied: a buffer of their own would cost more than the copy. */
    static final int REFERENCE_THRESHOLD = 4096;
    private static final int MAX_CHUNK = 64 * 1024;

    private final List<ByteBuffer> segments = new ArrayList<>();
    /** Bytes of the frame not yet written; each chunk is sized from it, so no chunk is larger than needed. */
    private int remaining;
    private ByteBuffer chunk;

    FrameWriter(int frameSize) {
        this.remaining = frameSize;
        this.chunk = ByteBuffer.allocate(Math.min(frameSize, MAX_CHUNK));
    }

    /** The frame's buffers, in order; each from position 0 to its limit. */
    ByteBuffer[] finish() {
        if (remaining != 0) {
            throw new IllegalStateException(remaining + " bytes of the frame were not written");
        }
        endChunk();
        return segments.toArray(ByteBuffer[]::new);
    }

    private void endChunk() {
        if (chunk.position() > 0) {
            segments.add(chunk.flip());
        }
        chunk = null;
    }

    /** Room for {@code n} more bytes of fields in the current chunk. */
    private ByteBuffer room(int n) {
        if (n > remaining) {
            throw new IllegalStateException("writing " + n + " bytes past the frame's end (" + remaining + " left)");
        }
        if (chunk == null || chunk.remaining() < n) {
            if (chunk != null) {
                endChunk();
            }
            chunk = ByteBuffer.allocate(Math.max(n, Math.min(remaining, MAX_CHUNK)));
        }
        remaining -= n;
        return chunk;
    }

    private void reference(ByteBuffer b) {
        int n = b.remaining();
        if (n > remaining) {
            throw new IllegalStateException("writing " + n + " bytes past the frame's end (" + remaining + " left)");
        }
        if (chunk != null && chunk.position() > 0) {
            ByteBuffer done = chunk;
            chunk = done.slice(done.position(), done.remaining()); // the rest of this chunk goes on after b
            segments.add(done.flip());
        }
        segments.add(b);
        remaining -= n;
    }

    @Override
    public void writeByte(byte val) {
        room(1).put(val);
    }

    @Override
    public void writeShort(short val) {
        room(2).putShort(val);
    }

    @Override
    public void writeInt(int val) {
        room(4).putInt(val);
    }

    @Override
    public void writeLong(long val) {
        room(8).putLong(val);
    }

    @Override
    public void writeDouble(double val) {
        ByteUtils.writeDouble(val, room(8));
    }

    @Override
    public void writeByteArray(byte[] arr) {
        room(arr.length).put(arr);
    }

    @Override
    public void writeUnsignedVarint(int i) {
        ByteUtils.writeUnsignedVarint(i, room(ByteUtils.sizeOfUnsignedVarint(i)));
    }

    @Override
    public void writeByteBuffer(ByteBuffer buf) {
        room(buf.remaining()).put(buf.duplicate());
    }

    @Override
    public void writeVarint(int i) {
        ByteUtils.writeVarint(i, room(ByteUtils.sizeOfVarint(i)));
    }

    @Override
    public void writeVarlong(long i) {
        ByteUtils.writeVarlong(i, room(ByteUtils.sizeOfVarlong(i)));
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof BatchRecords batches) {
            // Per batch: a fetch of many small batches would otherwise become as many tiny buffers.
            for (ByteBuffer b : batches.buffers()) {
                if (b.remaining() < REFERENCE_THRESHOLD) {
                    writeByteBuffer(b);
                } else {
                    reference(b);
                }
            }
        } else if (records instanceof MemoryRecords m && m.sizeInBytes() >= REFERENCE_THRESHOLD) {
            reference(m.buffer().asReadOnlyBuffer());
        } else {
            Writable.super.writeRecords(records);
        }
    }
}
