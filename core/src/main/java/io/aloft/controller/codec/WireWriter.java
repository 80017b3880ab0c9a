package io.aloft.controller.codec;

import java.util.Arrays;

/**
 * The byte sink of one encoding: grows as it fills, and remembers the feature level the value is
 * written for and the highest level any record version written so far needs.
 *
 * <p>Confined to the encoding thread; one per {@link ControllerCodec#encode} call.
 */
final class WireWriter {
    private final SchemaRegistry registry;
    private final int level;
    private byte[] bytes = new byte[256];
    private int size;
    private int levelMet;

    WireWriter(SchemaRegistry registry, int level) {
        this.registry = registry;
        this.level = level;
    }

    SchemaRegistry registry() {
        return registry;
    }

    /** The feature level every record in the value must be written for. */
    int level() {
        return level;
    }

    /** Notes that a record version (or enum constant) of {@code recordLevel} was written. */
    void met(int recordLevel) {
        levelMet = Math.max(levelMet, recordLevel);
    }

    int levelMet() {
        return levelMet;
    }

    int size() {
        return size;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    void put(byte b) {
        ensure(1);
        bytes[size++] = b;
    }

    void put(byte[] src) {
        ensure(src.length);
        System.arraycopy(src, 0, bytes, size, src.length);
        size += src.length;
    }

    /** Big-endian. */
    void putShortAt(int offset, int value) {
        bytes[offset] = (byte) (value >>> 8);
        bytes[offset + 1] = (byte) value;
    }

    /** Big-endian. */
    void putLong(long v) {
        ensure(8);
        for (int i = 7; i >= 0; i--) {
            bytes[size++] = (byte) (v >>> (i * 8));
        }
    }

    /** Zig-zag varint: small magnitudes of either sign (the -1 sentinels) take one byte. */
    void putVarLong(long v) {
        long zigzag = (v << 1) ^ (v >> 63);
        ensure(10);
        while ((zigzag & ~0x7fL) != 0) {
            bytes[size++] = (byte) ((zigzag & 0x7f) | 0x80);
            zigzag >>>= 7;
        }
        bytes[size++] = (byte) zigzag;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }
}
