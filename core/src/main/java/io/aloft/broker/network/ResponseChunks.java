package io.aloft.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A large response frame handed to the channel one {@link WritePieces piece} at a time, through
 * {@link ChunkedWriteHandler}: the next piece is taken only when the channel is writable again,
 * so a connection holds about one piece of direct memory at a time instead of its whole response.
 *
 * <p>Why: Netty copies each heap message into a direct buffer before the socket write. A whole
 * fetch response (up to {@code fetch.max.bytes}) as one message was larger than the pool's chunk
 * and got a fresh, unpooled buffer that the JDK zero-fills first (a fifth of the broker's CPU in a
 * catch-up drain, and one uninterruptible fill held a JVM safepoint, and with it every thread, for
 * 65 ms). All pieces at once would be pooled but would still make the pool grow and shrink by
 * whole chunks per response, zero-filling each new one; one piece at a time stays within the pool.
 *
 * <p>Confined to the connection's event loop.
 */
final class ResponseChunks implements ChunkedInput<ByteBuf> {
    private final List<ByteBuffer[]> pieces;
    private final long length;
    private int next;
    private long progress;

    ResponseChunks(List<ByteBuffer[]> pieces) {
        this.pieces = pieces;
        long total = 0;
        for (ByteBuffer[] piece : pieces) {
            for (ByteBuffer b : piece) {
                total += b.remaining();
            }
        }
        this.length = total;
    }

    @Override
    public boolean isEndOfInput() {
        return next == pieces.size();
    }

    @Override
    public void close() {
        next = pieces.size();
    }

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) {
        if (isEndOfInput()) {
            return null;
        }
        ByteBuf chunk = Unpooled.wrappedBuffer(pieces.get(next++));
        progress += chunk.readableBytes();
        return chunk;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public long progress() {
        return progress;
    }
}
