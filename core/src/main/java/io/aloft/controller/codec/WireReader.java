package io.aloft.controller.codec;

import java.nio.ByteBuffer;

/**
 * The byte source of one decoding. Every length is checked against the bytes left before anything
 * is allocated, and nesting is bounded, so hostile input fails with
 * {@link MalformedDataException}, never an out-of-memory error or a stack overflow. Remembers the
 * highest feature level any record version read needs.
 *
 * <p>Confined to the decoding thread; one per {@link ControllerCodec#decode} call.
 */
final class WireReader {
    /** Records, lists, maps and tagged values nested deeper than this are refused. */
    static final int MAX_DEPTH = 32;

    private final ByteBuffer in;
    private final SchemaRegistry registry;
    private int depth;
    private int levelMet;

    /** Reads {@code in} from its position; the caller's buffer is not moved. */
    WireReader(ByteBuffer in, SchemaRegistry registry) {
        this.in = in.duplicate();
        this.registry = registry;
    }

    SchemaRegistry registry() {
        return registry;
    }

    void met(int recordLevel) {
        levelMet = Math.max(levelMet, recordLevel);
    }

    int levelMet() {
        return levelMet;
    }

    int remaining() {
        return in.remaining();
    }

    int position() {
        return in.position();
    }

    /** Enters one level of nesting; pair with {@link #exit}. */
    void enter() {
        if (++depth > MAX_DEPTH) {
            throw new MalformedDataException("nested deeper than " + MAX_DEPTH);
        }
    }

    void exit() {
        depth--;
    }

    byte get() {
        return in.get();
    }

    /** Big-endian, unsigned. */
    int getUnsignedShort() {
        return in.getShort() & 0xffff;
    }

    long getLong() {
        return in.getLong();
    }

    byte[] getBytes(int length) {
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    /** A zig-zag varint of at most 10 bytes. */
    long getVarLong() {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedDataException("varint longer than 10 bytes");
    }

    int getVarInt(String what) {
        long value = getVarLong();
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new MalformedDataException(what + " " + value + " is out of the int range");
        }
        return (int) value;
    }

    /**
     * A count or length that cannot exceed the bytes left (every element takes at least one byte),
     * or -1 when {@code nullable} allows it.
     */
    int getLength(String what, boolean nullable) {
        long length = getVarLong();
        if (length == -1 && nullable) {
            return -1;
        }
        if (length < 0 || length > in.remaining()) {
            throw new MalformedDataException(what + " length " + length + " exceeds the " + in.remaining()
                    + " bytes left");
        }
        return (int) length;
    }
}
