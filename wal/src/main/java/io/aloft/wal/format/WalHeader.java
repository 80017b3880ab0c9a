package io.aloft.wal.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The log's superblock. Two copies live in the first two 4 KiB slots of the device and are
 * written alternately (sequence {@code n} goes to slot {@code n % 2}), so a torn header write
 * leaves the previous copy intact. On open the valid copy with the highest sequence wins.
 *
 * <pre>
 * offset  length  field
 *      0       4  magic {@link #MAGIC}
 *      4       4  format version {@link #VERSION}
 *      8       8  sequence, +1 per header write
 *     16       8  capacity in bytes, headers included
 *     24       8  trim offset: records at lower logical offsets are gone
 *     32       8  scan start: the record boundary where recovery begins; above the trim offset
 *                 only when nothing but padding lies between them
 *     40       4  epoch: +1 per open; records carry the epoch that wrote them
 *     44       4  CRC32C of bytes 0..44
 * </pre>
 *
 * @param sequence header write counter
 * @param capacity bytes of the device in use, header slots included
 * @param trimOffset records below this logical offset are no longer needed
 * @param scanStart record boundary where a scan starts (no record lies in between it and
 *     {@code trimOffset} when it is the higher)
 * @param epoch open epoch current when this copy was written
 */
public record WalHeader(long sequence, long capacity, long trimOffset, long scanStart, int epoch) {
    public static final int MAGIC = 0x414C5748; // "ALWH"
    public static final int VERSION = 1;
    public static final int SLOT_SIZE = 4096;
    public static final int SLOT_COUNT = 2;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;
    static final int CAPACITY_OFFSET = 16;
    static final int TRIM_OFFSET = 24;
    static final int SCAN_START_OFFSET = 32;
    static final int EPOCH_OFFSET = 40;
    static final int CRC_OFFSET = 44;
    public static final int ENCODED_SIZE = 48;

    /** Byte position on the device of the slot this copy is written to. */
    public long slotPosition() {
        return (sequence % SLOT_COUNT) * SLOT_SIZE;
    }

    /** Encodes into the first {@link #ENCODED_SIZE} bytes of {@code slot} (absolute puts; rest untouched). */
    public void encodeTo(ByteBuffer slot) {
        slot.putInt(MAGIC_OFFSET, MAGIC);
        slot.putInt(VERSION_OFFSET, VERSION);
        slot.putLong(SEQUENCE_OFFSET, sequence);
        slot.putLong(CAPACITY_OFFSET, capacity);
        slot.putLong(TRIM_OFFSET, trimOffset);
        slot.putLong(SCAN_START_OFFSET, scanStart);
        slot.putInt(EPOCH_OFFSET, epoch);
        slot.putInt(CRC_OFFSET, crc(slot));
    }

    /**
     * Decodes a slot, or returns {@code null} if it does not hold a valid header (wrong magic,
     * version or CRC, or inconsistent fields).
     */
    public static WalHeader decode(ByteBuffer slot) {
        if (slot.getInt(MAGIC_OFFSET) != MAGIC || slot.getInt(VERSION_OFFSET) != VERSION
                || slot.getInt(CRC_OFFSET) != crc(slot)) {
            return null;
        }
        WalHeader h = new WalHeader(slot.getLong(SEQUENCE_OFFSET), slot.getLong(CAPACITY_OFFSET),
                slot.getLong(TRIM_OFFSET), slot.getLong(SCAN_START_OFFSET), slot.getInt(EPOCH_OFFSET));
        boolean sane = h.sequence >= 0 && h.capacity > 0 && h.scanStart >= 0 && h.trimOffset >= 0;
        return sane ? h : null;
    }

    private static int crc(ByteBuffer slot) {
        CRC32C crc = new CRC32C();
        crc.update(slot.slice(0, CRC_OFFSET));
        return (int) crc.getValue();
    }
}
