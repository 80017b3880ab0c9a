package io.aloft.stream.wal;

import io.aloft.wal.WalRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The bytes of one WAL object and its key. Objects are numbered 0, 1, 2, ... in the order their
 * writer stores them; the key is the log's prefix and that sequence number, zero-padded so keys
 * list in order:
 *
 * <pre>
 * object  = magic "AWAL" (4) | version (1) | kind (1: records, 2: fence) | sequence (8) | record*
 * record  = body length (4) | CRC32C of the body (4) | body
 * </pre>
 *
 * A record's logical offset is {@code sequence << 24 | its position in the object} (an object
 * holds at most {@link #MAX_OBJECT_BYTES}), so offsets grow in log order, sparsely. A <em>fence</em>
 * object has no records: a broker taking the log over stores fences at the next sequence numbers,
 * so the previous writer's next object, which must take one of those keys, cannot be stored.
 *
 * <p>Immutable helpers: thread-safe.
 */
final class ObjectWalFormat {
    static final int MAGIC = 0x4157414C; // "AWAL"
    static final byte VERSION = 1;
    static final byte KIND_RECORDS = 1;
    static final byte KIND_FENCE = 2;
    static final int HEADER_BYTES = 4 + 1 + 1 + 8;
    static final int RECORD_HEADER_BYTES = 8;
    static final int OFFSET_BITS = 24;
    static final int MAX_OBJECT_BYTES = 1 << OFFSET_BITS;
    private static final String OFFSET_FORMAT = "%020d";

    private ObjectWalFormat() {
    }

    static String key(String prefix, long sequence) {
        return prefix + String.format(OFFSET_FORMAT, sequence);
    }

    /** The first logical offset of object {@code sequence}. */
    static long offset(long sequence) {
        return sequence << OFFSET_BITS;
    }

    /** The sequence number of the object holding logical offset {@code offset}. */
    static long sequence(long offset) {
        return offset >>> OFFSET_BITS;
    }

    /** The sequence number a key names, or -1 if it is not a WAL object key under {@code prefix}. */
    static long sequenceOf(String prefix, String key) {
        if (!key.startsWith(prefix) || key.length() != prefix.length() + 20) {
            return -1;
        }
        try {
            return Long.parseLong(key.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static ByteBuffer encode(long sequence, List<ByteBuffer> bodies) {
        int size = HEADER_BYTES;
        for (ByteBuffer b : bodies) {
            size += RECORD_HEADER_BYTES + b.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(MAGIC).put(VERSION).put(KIND_RECORDS).putLong(sequence);
        CRC32C crc = new CRC32C();
        for (ByteBuffer b : bodies) {
            crc.reset();
            crc.update(b.duplicate());
            out.putInt(b.remaining()).putInt((int) crc.getValue()).put(b.duplicate());
        }
        return out.flip();
    }

    static ByteBuffer fence(long sequence) {
        return ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).put(VERSION).put(KIND_FENCE).putLong(sequence)
                .flip();
    }

    /**
     * The records of object {@code expectedSequence}.
     *
     * @throws IllegalStateException if the header or any record fails its checks: an object is
     *     written whole or not at all, so damage is not a torn tail but corruption
     */
    static List<WalRecord> decode(ByteBuffer object, long expectedSequence) {
        ByteBuffer in = object.duplicate();
        int base = in.position();
        if (in.remaining() < HEADER_BYTES || in.getInt() != MAGIC || in.get() != VERSION) {
            throw new IllegalStateException("WAL object " + expectedSequence + " has no valid header");
        }
        byte kind = in.get();
        long start = in.getLong();
        if (start != expectedSequence) {
            throw new IllegalStateException("WAL object keyed " + expectedSequence + " says it is " + start);
        }
        List<WalRecord> records = new ArrayList<>();
        if (kind == KIND_FENCE) {
            return records;
        }
        CRC32C crc = new CRC32C();
        while (in.hasRemaining()) {
            long offset = offset(start) + (in.position() - base);
            if (in.remaining() < RECORD_HEADER_BYTES) {
                throw new IllegalStateException("WAL object at " + start + ": truncated record at " + offset);
            }
            int length = in.getInt();
            int expectedCrc = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new IllegalStateException("WAL object at " + start + ": bad length " + length + " at " + offset);
            }
            ByteBuffer body = in.slice(in.position(), length);
            crc.reset();
            crc.update(body.duplicate());
            if ((int) crc.getValue() != expectedCrc) {
                throw new IllegalStateException("WAL object at " + start + ": CRC mismatch at " + offset);
            }
            records.add(new WalRecord(offset, body));
            in.position(in.position() + length);
        }
        return records;
    }
}
