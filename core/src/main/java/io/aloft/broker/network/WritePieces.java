package io.aloft.broker.network;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a response frame (its buffers, in order) into consecutive pieces of at most a given size,
 * which {@link ResponseChunks} hands to the channel one at a time (why: see there).
 *
 * <p>Stateless.
 */
final class WritePieces {
    /** A quarter of Netty's default pool chunk (4 MiB), so a piece is a pooled allocation. */
    static final int PIECE_BYTES = 1024 * 1024;

    private WritePieces() {
    }

    /** How many bytes the frame's buffers hold (between their positions and limits). */
    static long bytes(ByteBuffer[] frame) {
        long total = 0;
        for (ByteBuffer buffer : frame) {
            total += buffer.remaining();
        }
        return total;
    }

    /**
     * The frame's bytes as pieces: each piece's buffers together hold at most {@code pieceBytes}
     * bytes, and every piece but the last exactly that many. Buffers are views (slices) of the
     * frame's; the frame's buffers' positions are not moved. No piece for an empty frame.
     */
    static List<ByteBuffer[]> split(ByteBuffer[] frame, int pieceBytes) {
        if (pieceBytes <= 0) {
            throw new IllegalArgumentException("pieceBytes must be positive, got " + pieceBytes);
        }
        List<ByteBuffer[]> pieces = new ArrayList<>();
        List<ByteBuffer> piece = new ArrayList<>();
        int size = 0;
        for (ByteBuffer buffer : frame) {
            int position = buffer.position();
            int end = buffer.limit();
            while (position < end) {
                int take = Math.min(end - position, pieceBytes - size);
                piece.add(buffer.slice(position, take));
                position += take;
                size += take;
                if (size == pieceBytes) {
                    pieces.add(piece.toArray(ByteBuffer[]::new));
                    piece.clear();
                    size = 0;
                }
            }
        }
        if (size > 0) {
            pieces.add(piece.toArray(ByteBuffer[]::new));
        }
        return pieces;
    }
}
