package io.aloft.broker.network;

import io.aloft.broker.network.ReadPauses.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;

/**
 * Splits a connection's bytes into {@link RequestFrame}s: a 4-byte big-endian size, then that many
 * bytes. The first handler of every connection's pipeline.
 *
 * <p><b>Size limit.</b> The size field alone is compared with {@code socket.request.max.bytes}, as
 * Kafka does: a frame whose size field equals the limit is read, one byte more is refused on its
 * prefix, before any of its body is buffered. A negative size is refused the same way. Either is
 * passed on as a {@link TooLongFrameException} / {@link CorruptedFrameException} (the next handler
 * closes the connection), and every byte after it is dropped unread.
 *
 * <p><b>Memory.</b> Once the size is known, and before the body is read, the frame's bytes are
 * reserved: first against this connection's share ({@code connectionBudget}: bytes of its frames
 * being read or not yet handled; a frame is admitted over the share only when the connection holds
 * nothing else, so a request the size limit allows is never refused), then from the broker-wide
 * {@link RequestMemoryPool}. Then one heap array of exactly that size is allocated and filled from
 * the socket's read buffers as they arrive, which are released at once: nothing grows, nothing is
 * copied twice, and direct memory holds only the read in progress. When a reservation must wait,
 * the connection stops reading ({@link ReadPauses}) until a frame of its own is released or the
 * pool grants the bytes; the little that was already read past the size prefix (at most one read,
 * since Netty stops its read loop once autoRead is off) is kept on the heap meanwhile.
 *
 * <p>Confined to the connection's event loop, except {@link #granted()}, which the pool calls on
 * the releasing thread and which only hands over to the event loop.
 */
final class RequestFrameDecoder extends ChannelInboundHandlerAdapter implements RequestMemoryPool.Waiter {
    private static final int SIZE_BYTES = 4;

    private final int maxRequestBytes;
    private final RequestMemoryPool pool;
    private final long connectionBudget;
    private final ReadPauses pauses;
    private ChannelHandlerContext ctx;

    /** The size prefix being read: its bytes so far and how many. */
    private int size;
    private int sizeBytesRead;
    /** The frame being filled (null between frames), and how many of its bytes have arrived. */
    private byte[] frame;
    private int filled;
    /** A frame size whose bytes are not reserved yet, or -1. */
    private int waitingFor = -1;
    /** Whether {@link #waitingFor} is queued in the pool (else it waits for this connection's share). */
    private boolean queuedInPool;
    /** Bytes read past the size prefix while waiting for memory (heap), or null. */
    private ByteBuf backlog;
    /** Bytes this connection holds reserved: frames handed on and not released, and the one being read. */
    private long held;
    /** Set on a refused size or once the connection is gone: everything after is dropped. */
    private boolean stopped;

    /**
     * @param connectionBudget this connection's share of request memory, or {@link Long#MAX_VALUE}
     */
    RequestFrameDecoder(int maxRequestBytes, RequestMemoryPool pool, long connectionBudget, ReadPauses pauses) {
        this.maxRequestBytes = maxRequestBytes;
        this.pool = pool;
        this.connectionBudget = connectionBudget;
        this.pauses = pauses;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (waitingFor >= 0 || backlog != null) {
                stash(in);
            } else {
                consume(in);
            }
        } finally {
            in.release();
        }
    }

    /**
     * Reads frames out of {@code in} (borrowed) until it is empty, the connection stops, or a
     * reservation must wait (then the rest is kept in the backlog).
     */
    private void consume(ByteBuf in) {
        while (!stopped) {
            if (frame == null) {
                if (!in.isReadable()) {
                    return;
                }
                while (sizeBytesRead < SIZE_BYTES && in.isReadable()) {
                    size = size << 8 | in.readUnsignedByte();
                    sizeBytesRead++;
                }
                if (sizeBytesRead < SIZE_BYTES) {
                    return;
                }
                int frameSize = size;
                size = 0;
                sizeBytesRead = 0;
                if (frameSize < 0 || frameSize > maxRequestBytes) {
                    refuse(frameSize);
                    return;
                }
                if (!admit(frameSize)) {
                    stash(in);
                    return;
                }
            }
            int n = Math.min(in.readableBytes(), frame.length - filled);
            in.readBytes(frame, filled, n);
            filled += n;
            if (filled < frame.length) {
                return;
            }
            RequestFrame done = new RequestFrame(ByteBuffer.wrap(frame), this);
            frame = null;
            filled = 0;
            ctx.fireChannelRead(done);
        }
    }

    /**
     * Reserves {@code frameSize} bytes and starts the frame, or records the wait (pausing reads) and
     * returns false.
     */
    private boolean admit(int frameSize) {
        if (held > 0 && frameSize > connectionBudget - held) {
            waitingFor = frameSize;
            pauses.pause(Reason.CONNECTION_MEMORY);
            return false;
        }
        if (!pool.reserve(frameSize, this)) {
            waitingFor = frameSize;
            queuedInPool = true;
            pauses.pause(Reason.POOL_MEMORY);
            return false;
        }
        start(frameSize);
        return true;
    }

    private void start(int frameSize) {
        held += frameSize;
        frame = new byte[frameSize];
        filled = 0;
    }

    /** Keeps what is left of {@code in} (borrowed) on the heap until the wait is over. */
    private void stash(ByteBuf in) {
        if (stopped || !in.isReadable()) {
            return;
        }
        if (backlog == null) {
            backlog = Unpooled.buffer(in.readableBytes());
        }
        backlog.writeBytes(in);
    }

    /** Frames in the backlog, now that a wait is over; stops again if another must wait. */
    private void drainBacklog() {
        ByteBuf b = backlog;
        backlog = null;
        if (b == null) {
            return;
        }
        try {
            consume(b);
        } finally {
            b.release();
        }
    }

    private void refuse(int frameSize) {
        stopped = true;
        pauses.pause(Reason.CLOSING);
        ctx.fireExceptionCaught(frameSize < 0
                ? new CorruptedFrameException("negative request size " + frameSize)
                : new TooLongFrameException("request of " + frameSize + " bytes (the size field) is larger than "
                        + "socket.request.max.bytes=" + maxRequestBytes));
    }

    /** Called by the pool, on the thread that freed the memory: the bytes of {@link #waitingFor} are ours now. */
    @Override
    public void granted() {
        try {
            ctx.executor().execute(this::onGranted);
        } catch (RejectedExecutionException e) {
            // The server is shutting down with its event loops: no connection reads any more, and the
            // pool goes with the server, so the grant need not be given back.
        }
    }

    private void onGranted() {
        int frameSize = waitingFor;
        waitingFor = -1;
        queuedInPool = false;
        if (stopped) {
            pool.release(frameSize); // granted after the connection went away
            return;
        }
        start(frameSize);
        pauses.resume(Reason.POOL_MEMORY);
        drainBacklog();
    }

    /** {@link RequestFrame#release()}: {@code bytes} of a frame handed on are free again. */
    void released(int bytes) {
        held -= bytes;
        pool.release(bytes);
        if (!stopped && waitingFor >= 0 && !queuedInPool) {
            int frameSize = waitingFor;
            waitingFor = -1;
            pauses.resume(Reason.CONNECTION_MEMORY);
            if (admit(frameSize)) {
                drainBacklog();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    /** Drops what is buffered and gives back every reservation not handed on. */
    private void stop() {
        if (stopped && frame == null && backlog == null && waitingFor < 0) {
            return;
        }
        stopped = true;
        if (frame != null) {
            held -= frame.length;
            pool.release(frame.length);
            frame = null;
        }
        if (waitingFor >= 0 && (!queuedInPool || pool.cancel(this))) {
            // Not granted: nothing to give back. (If the pool granted it meanwhile, onGranted gives it back.)
            waitingFor = -1;
            queuedInPool = false;
        }
        if (backlog != null) {
            backlog.release();
            backlog = null;
        }
    }

    /** Bytes this connection holds reserved (for tests). */
    long held() {
        return held;
    }
}
