package io.aloft.controller.codec;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HexFormat;

/** Byte building for codec tests, written independently of the codec's own writer. */
final class Bytes {
    private Bytes() {
    }

    /** A frame header for {@code level} (known level the same), followed by {@code value}. */
    static byte[] frame(int level, byte[]... value) {
        return concat(bytes(0xAC, 1, level >>> 8, level & 0xff, level >>> 8, level & 0xff), concat(value));
    }

    static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    /** A zig-zag varint. */
    static byte[] varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long z = (v << 1) ^ (v >> 63);
        while ((z & ~0x7fL) != 0) {
            out.write((int) ((z & 0x7f) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
        return out.toByteArray();
    }

    static byte[] varints(long... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long v : values) {
            out.writeBytes(varint(v));
        }
        return out.toByteArray();
    }

    /** A string field: varint length, UTF-8 bytes. */
    static byte[] string(String s) {
        byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return concat(varint(utf8.length), utf8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** {@code in} with the last occurrence of {@code find} replaced by {@code with}. */
    static byte[] replaceLast(byte[] in, byte[] find, byte[] with) {
        for (int i = in.length - find.length; i >= 0; i--) {
            if (Arrays.equals(in, i, i + find.length, find, 0, find.length)) {
                return concat(Arrays.copyOf(in, i), with, Arrays.copyOfRange(in, i + find.length, in.length));
            }
        }
        throw new AssertionError(hex(find) + " not in " + hex(in));
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
