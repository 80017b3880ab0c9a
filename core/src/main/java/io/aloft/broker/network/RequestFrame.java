package io.aloft.broker.network;

import java.nio.ByteBuffer;

/**
 * One request frame as read from a connection, without its size prefix: a heap buffer of exactly
 * the frame's size, filled once (no growing buffer, no second copy), whose bytes stay reserved in
 * the {@link RequestMemoryPool} until {@link #release()}.
 *
 * <p>Ownership: the {@link RequestFrameDecoder} hands the frame to the next handler, which must call
 * {@link #release()} once the request no longer needs its bytes (its handler completed, or it was
 * refused). The buffer itself is ordinary heap memory: request objects may keep slices of it (record
 * batches) for as long as they like; the reservation is what bounds how many such frames exist.
 *
 * <p>Confined to the connection's event loop.
 */
final class RequestFrame {
    private final ByteBuffer buffer;
    private RequestFrameDecoder owner;

    RequestFrame(ByteBuffer buffer, RequestFrameDecoder owner) {
        this.buffer = buffer;
        this.owner = owner;
    }

    /** The frame's bytes, position 0, limit its size. */
    ByteBuffer buffer() {
        return buffer;
    }

    int size() {
        return buffer.capacity();
    }

    /** Gives the frame's bytes back to the pool; later calls do nothing. */
    void release() {
        RequestFrameDecoder o = owner;
        if (o != null) {
            owner = null;
            o.released(buffer.capacity());
        }
    }
}
