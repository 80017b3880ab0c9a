package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WritePiecesTest {

    @Test
    void piecesHoldTheFramesBytesInOrderAndNoneIsLargerThanTheLimit() {
        Random random = new Random(7);
        ByteBuffer[] frame = new ByteBuffer[40];
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < frame.length; i++) {
            byte[] bytes = new byte[random.nextInt(i % 5 == 0 ? 300_000 : 5_000)];
            random.nextBytes(bytes);
            expected.writeBytes(bytes);
            frame[i] = ByteBuffer.wrap(bytes);
        }
        int limit = 64 * 1024;
        List<ByteBuffer[]> pieces = WritePieces.split(frame, limit);

        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        for (int p = 0; p < pieces.size(); p++) {
            int size = 0;
            for (ByteBuffer b : pieces.get(p)) {
                size += b.remaining();
                byte[] copy = new byte[b.remaining()];
                b.duplicate().get(copy);
                actual.writeBytes(copy);
            }
            if (p < pieces.size() - 1) {
                assertEquals(limit, size, "every piece but the last is full");
            } else {
                assertTrue(size > 0 && size <= limit, "last piece " + size);
            }
        }
        assertArrayEquals(expected.toByteArray(), actual.toByteArray());
        for (ByteBuffer b : frame) {
            assertEquals(0, b.position(), "the frame's buffers are not consumed");
        }
    }

    @Test
    void aBufferLargerThanAPieceIsCutIntoViewsOfItNotCopies() {
        byte[] bytes = new byte[2 * 1000 + 10];
        ByteBuffer big = ByteBuffer.wrap(bytes);
        List<ByteBuffer[]> pieces = WritePieces.split(new ByteBuffer[] {ByteBuffer.wrap(new byte[4]), big}, 1000);
        assertEquals(3, pieces.size());
        assertEquals(2, pieces.get(0).length, "the 4-byte header and the first 996 bytes share a piece");
        bytes[996] = 42; // first byte of the second piece, seen through the view
        assertEquals(42, pieces.get(1)[0].get(pieces.get(1)[0].position()));
        assertEquals(14, pieces.get(2)[0].remaining());
    }

    @Test
    void aFrameOfBuffersStartingPastZeroKeepsOnlyTheirRemainingBytes() {
        ByteBuffer b = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
        b.position(2);
        List<ByteBuffer[]> pieces = WritePieces.split(new ByteBuffer[] {b}, 2);
        assertEquals(2, pieces.size());
        assertEquals(3, pieces.get(0)[0].get(0));
        assertEquals(5, pieces.get(1)[0].get(0));
        assertEquals(1, pieces.get(1)[0].remaining());
        assertEquals(3, WritePieces.bytes(new ByteBuffer[] {b}), "a frame's size counts what it holds, not its arrays");
        assertEquals(3 + 7, WritePieces.bytes(new ByteBuffer[] {b, ByteBuffer.allocate(7)}));
    }

    @Test
    void anEmptyFrameHasNoPiecesAndTheLimitMustBePositive() {
        assertEquals(0, WritePieces.split(new ByteBuffer[] {ByteBuffer.allocate(0)}, 10).size());
        assertThrows(IllegalArgumentException.class, () -> WritePieces.split(new ByteBuffer[0], 0));
    }

    @Test
    void responseChunksWrittenThroughChunkedWriteHandlerArriveWholeAndInOrderWithOtherWrites() {
        byte[] bytes = new byte[3 * 1000 + 123];
        new Random(3).nextBytes(bytes);
        EmbeddedChannel channel = new EmbeddedChannel(new ChunkedWriteHandler());
        ResponseChunks chunks = new ResponseChunks(WritePieces.split(new ByteBuffer[] {ByteBuffer.wrap(bytes)}, 1000));
        assertEquals(bytes.length, chunks.length());
        channel.write(chunks);
        channel.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {9, 9}));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int messages = 0;
        for (ByteBuf m; (m = channel.readOutbound()) != null; messages++) {
            byte[] copy = new byte[m.readableBytes()];
            m.readBytes(copy);
            m.release();
            out.writeBytes(copy);
        }
        byte[] expected = java.util.Arrays.copyOf(bytes, bytes.length + 2);
        expected[bytes.length] = 9;
        expected[bytes.length + 1] = 9;
        assertArrayEquals(expected, out.toByteArray());
        assertEquals(5, messages, "four pieces, then the later write");
        assertTrue(chunks.isEndOfInput());
        assertEquals(bytes.length, chunks.progress());
        channel.finishAndReleaseAll();
    }
}
