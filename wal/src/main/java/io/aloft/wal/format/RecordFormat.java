package io.aloft.wal.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Layout of one record in the ring, written big-endian:
 *
 * <pre>
 * offset  length  field
 *      0       4  magic: {@link #RECORD_MAGIC} for data, {@link #PADDING_MAGIC} for filler
 *      4       4  body length in bytes
 *      8       8  logical offset of this header (checked on recovery: catches stale laps)
 *     16       4  open epoch of the log that wrote it (never decreases along the chain)
 *     20       4  CRC32C of the body followed by bytes 0..20 (header bytes only for padding)
 *     24       n  body
 * </pre>
 *
 * <p>A padding record fills the space from the last record of a write to the next 4 KiB boundary,
 * or to the end of the ring, so that every byte between the trim point and the end of the log
 * belongs to a record the scan can step over. Its body is not checksummed and never returned.
 *
 * <p>The checksum covers the body first so that writers can checksum a body before they know
 * where it will be placed, and finish with the header once they do.
 *
 * <p>Stateless and thread-safe.
 */
public final class RecordFormat {
    public static final int RECORD_MAGIC = 0x414C4652; // "ALFR"
    public static final int PADDING_MAGIC = 0x414C4650; // "ALFP"

    public static final int MAGIC_OFFSET = 0;
    public static final int LENGTH_OFFSET = 4;
    public static final int LOGICAL_OFFSET_OFFSET = 8;
    public static final int EPOCH_OFFSET = 16;
    public static final int CRC_OFFSET = 20;
    public static final int HEADER_SIZE = 24;

    private RecordFormat() {
    }

    /**
     * Starts a record checksum over the body's remaining bytes (the body's position is not moved).
     * Pass the result to {@link #writeRecord}; it may be computed before the record is placed.
     */
    public static CRC32C bodyChecksum(ByteBuffer body) {
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        return crc;
    }

    /**
     * Writes a data record's header and body at {@code at} in {@code dst} with absolute puts; the
     * positions of {@code dst} and {@code body} are not moved.
     *
     * @param bodyChecksum {@link #bodyChecksum(ByteBuffer)} of {@code body}; consumed
     */
    public static void writeRecord(ByteBuffer dst, int at, long logicalOffset, int epoch, ByteBuffer body,
            CRC32C bodyChecksum) {
        int length = body.remaining();
        putHeaderFields(dst, at, RECORD_MAGIC, length, logicalOffset, epoch);
        dst.put(at + HEADER_SIZE, body, body.position(), length);
        bodyChecksum.update(dst.slice(at, CRC_OFFSET));
        dst.putInt(at + CRC_OFFSET, (int) bodyChecksum.getValue());
    }

    /** Writes a padding record spanning {@code totalSize} bytes (header included) at {@code at}. */
    public static void writePadding(ByteBuffer dst, int at, int totalSize, long logicalOffset, int epoch) {
        if (totalSize < HEADER_SIZE) {
            throw new IllegalArgumentException("padding of " + totalSize + " bytes cannot hold a header");
        }
        putHeaderFields(dst, at, PADDING_MAGIC, totalSize - HEADER_SIZE, logicalOffset, epoch);
        dst.putInt(at + CRC_OFFSET, checksum(dst, at, at, 0));
    }

    private static void putHeaderFields(ByteBuffer dst, int at, int magic, int length, long offset, int epoch) {
        dst.putInt(at + MAGIC_OFFSET, magic);
        dst.putInt(at + LENGTH_OFFSET, length);
        dst.putLong(at + LOGICAL_OFFSET_OFFSET, offset);
        dst.putInt(at + EPOCH_OFFSET, epoch);
    }

    /**
     * The checksum a record should carry: CRC32C of {@code bodyLength} bytes at {@code bodyAt},
     * then the header fields at {@code headerAt}, read with absolute gets.
     */
    public static int checksum(ByteBuffer buf, int headerAt, int bodyAt, int bodyLength) {
        CRC32C crc = new CRC32C();
        if (bodyLength > 0) {
            crc.update(buf.slice(bodyAt, bodyLength));
        }
        crc.update(buf.slice(headerAt, CRC_OFFSET));
        return (int) crc.getValue();
    }

    /** Bytes a record with a body of {@code bodyLength} occupies, before padding. */
    public static long framedSize(int bodyLength) {
        return (long) HEADER_SIZE + bodyLength;
    }
}
