package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The frame decoder alone, on an {@link EmbeddedChannel}: framing, the size limit, memory reservations. */
class RequestFrameDecoderTest {
    /** What reaches the next handler: frames (kept, not released) and exceptions. */
    private static final class Sink extends ChannelInboundHandlerAdapter {
        final List<RequestFrame> frames = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add((RequestFrame) msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    private record Conn(EmbeddedChannel channel, RequestFrameDecoder decoder, Sink sink) {
        void write(ByteBuf bytes) {
            channel.writeInbound(bytes);
            channel.runPendingTasks();
        }

        boolean reading() {
            return channel.config().isAutoRead();
        }
    }

    private static Conn connect(int maxRequestBytes, RequestMemoryPool pool, long budget) {
        EmbeddedChannel ch = new EmbeddedChannel();
        RequestFrameDecoder decoder = new RequestFrameDecoder(maxRequestBytes, pool, budget, new ReadPauses(ch));
        Sink sink = new Sink();
        ch.pipeline().addLast(decoder, sink);
        return new Conn(ch, decoder, sink);
    }

    private static ByteBuf frame(int size, byte fill) {
        ByteBuf b = Unpooled.buffer(4 + size);
        b.writeInt(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(fill);
        }
        return b;
    }

    @Test
    void sizeFieldEqualToTheLimit_isRead() {
        RequestMemoryPool pool = new RequestMemoryPool(-1);
        Conn c = connect(1024, pool, Long.MAX_VALUE);
        ByteBuf in = frame(1024, (byte) 7);
        c.write(in);
        assertEquals(0, in.refCnt(), "the read buffer is released once copied");
        assertEquals(1, c.sink.frames.size());
        assertEquals(1024, c.sink.frames.get(0).size());
        assertTrue(c.sink.errors.isEmpty());
    }

    @Test
    void sizeFieldOneOverTheLimit_isRefusedOnItsPrefix_andTheRestDropped() {
        RequestMemoryPool pool = new RequestMemoryPool(-1);
        Conn c = connect(1024, pool, Long.MAX_VALUE);
        ByteBuf b = Unpooled.buffer();
        b.writeInt(1025);
        b.writeBytes(new byte[100]);
        b.writeBytes(frame(3, (byte) 1)); // a good frame after it is not read
        c.write(b);
        assertEquals(1, c.sink.errors.size());
        assertInstanceOf(TooLongFrameException.class, c.sink.errors.get(0));
        assertTrue(c.sink.frames.isEmpty());
        assertFalse(c.reading());
        assertEquals(0, pool.used(), "nothing was reserved for the refused frame");
    }

    @Test
    void negativeSize_isRefused() {
        Conn c = connect(1024, new RequestMemoryPool(-1), Long.MAX_VALUE);
        c.write(Unpooled.buffer().writeInt(-5));
        assertInstanceOf(CorruptedFrameException.class, c.sink.errors.get(0));
    }

    @Test
    void framesSplitAnywhere_areReassembled() {
        RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
        Conn c = connect(1 << 16, pool, Long.MAX_VALUE);
        ByteBuf all = Unpooled.buffer();
        all.writeBytes(frame(5, (byte) 1)).writeBytes(frame(0, (byte) 0)).writeBytes(frame(300, (byte) 3));
        while (all.isReadable()) {
            c.write(all.readRetainedSlice(Math.min(3, all.readableBytes())));
        }
        all.release();
        assertEquals(3, c.sink.frames.size());
        assertArrayEquals(new byte[] {1, 1, 1, 1, 1}, c.sink.frames.get(0).buffer().array());
        assertEquals(0, c.sink.frames.get(1).size());
        assertEquals(300, c.sink.frames.get(2).size());
        assertEquals(305, pool.used(), "reserved until released");
        c.sink.frames.forEach(RequestFrame::release);
        c.sink.frames.get(0).release(); // a second release does nothing
        assertEquals(0, pool.used());
    }

    @Test
    void poolFull_stopsReading_untilAnotherConnectionReleases() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        Conn a = connect(1000, pool, Long.MAX_VALUE);
        Conn b = connect(1000, pool, Long.MAX_VALUE);
        a.write(frame(80, (byte) 1));
        assertEquals(80, pool.used());

        ByteBuf two = Unpooled.buffer().writeBytes(frame(50, (byte) 2)).writeBytes(frame(10, (byte) 3));
        b.write(two);
        assertEquals(0, two.refCnt(), "what was read past the prefix is kept on the heap, not in the read buffer");
        assertTrue(b.sink.frames.isEmpty(), "50 bytes do not fit next to 80");
        assertFalse(b.reading(), "the connection stopped reading");
        assertEquals(1, pool.waiting());

        a.sink.frames.get(0).release();
        b.channel.runPendingTasks(); // the grant hops onto b's event loop
        assertEquals(2, b.sink.frames.size(), "the waiting frame and the one kept behind it");
        assertEquals(2, b.sink.frames.get(0).buffer().get(0));
        assertEquals(3, b.sink.frames.get(1).buffer().get(0));
        assertTrue(b.reading());
        assertEquals(60, pool.used());
    }

    @Test
    void connectionShare_full_waitsForItsOwnRequests() {
        RequestMemoryPool pool = new RequestMemoryPool(-1);
        Conn c = connect(1000, pool, 100);
        c.write(Unpooled.buffer().writeBytes(frame(60, (byte) 1)).writeBytes(frame(60, (byte) 2)));
        assertEquals(1, c.sink.frames.size());
        assertFalse(c.reading());
        c.sink.frames.get(0).release();
        assertEquals(2, c.sink.frames.size());
        assertTrue(c.reading());
        assertEquals(60, c.decoder.held());
    }

    @Test
    void connectionShare_aFrameLargerThanTheShare_isReadWhenTheConnectionHoldsNothingElse() {
        Conn c = connect(1000, new RequestMemoryPool(-1), 100);
        c.write(frame(500, (byte) 1));
        assertEquals(1, c.sink.frames.size());
    }

    @Test
    void close_givesBackThePartialFrameAndCancelsAWait() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        Conn a = connect(1000, pool, Long.MAX_VALUE);
        Conn b = connect(1000, pool, Long.MAX_VALUE);
        ByteBuf partial = Unpooled.buffer().writeInt(90).writeBytes(new byte[10]);
        a.write(partial);
        assertEquals(90, pool.used());
        b.write(Unpooled.buffer().writeInt(50).writeBytes(new byte[5]));
        assertEquals(1, pool.waiting());

        b.channel.close();
        assertEquals(0, pool.waiting(), "the closed connection's wait is cancelled");
        a.channel.close();
        assertEquals(0, pool.used(), "a partial frame's reservation is given back");
        assertNull(a.channel.readInbound());
    }
}
