package io.aloft.stream.object;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Byte layout of an object (stream-set or stream object; one format for both). All integers
 * are big-endian; offsets and lengths are in bytes.
 *
 * <pre>
 * object := data block* index block footer
 * </pre>
 *
 * <p><b>Data block</b>: batches of one stream with contiguous offsets, about
 * {@link ObjectWriterConfig#blockSize()} bytes (a batch larger than that gets a block of its own).
 * <pre>
 * offset  length  field
 *      0       4  MAGIC          {@link #BLOCK_MAGIC} ("ALDB")
 *      4       1  VERSION        {@link #VERSION}
 *      5       4  CRC            CRC32C of bytes [9, block size): the rest of the header and the body
 *      9       8  STREAM_ID
 *     17       8  START_OFFSET   base offset of the first batch
 *     25       8  END_OFFSET     offset just past the last batch (exclusive)
 *     33       4  BATCH_COUNT    at least 1
 *     37       4  BODY_LENGTH    block size - 41
 *     41       n  body: BATCH_COUNT batches, back to back, offsets contiguous
 * </pre>
 *
 * <p><b>Batch</b> (inside a block body; the stream id is the block's):
 * <pre>
 * offset  length  field
 *      0       8  BASE_OFFSET
 *      8       4  COUNT          offsets the batch takes, at least 1
 *     12       8  EPOCH          stream epoch of the writer that appended it
 *     20       4  PAYLOAD_LENGTH may be 0
 *     24       n  PAYLOAD
 * </pre>
 *
 * <p><b>Index block</b>: one entry per data block, sorted by (stream id, start offset), which
 * is also the order of the blocks in the object, so the blocks tile [0, index position).
 * <pre>
 * offset  length  field
 *      0       4  MAGIC          {@link #INDEX_MAGIC} ("ALIX")
 *      4       4  CRC            CRC32C of bytes [8, index length)
 *      8       4  ENTRY_COUNT
 *     12  48 * n  entries
 *
 * entry:
 *      0       8  STREAM_ID
 *      8       8  START_OFFSET
 *     16       8  END_OFFSET     exclusive
 *     24       8  EPOCH          epoch of the block's last batch (epochs never decrease in a stream)
 *     32       8  BLOCK_POSITION byte offset of the block in the object
 *     40       4  BLOCK_SIZE     header + body
 *     44       4  BATCH_COUNT
 * </pre>
 *
 * <p><b>Footer</b>: the object's last {@link #FOOTER_SIZE} bytes. The index ends where the
 * footer begins, so a reader fetches the tail (footer plus a guess of the index size) with one
 * ranged GET, and the rest of the index with a second one only if the guess fell short.
 * <pre>
 * offset  length  field
 *      0       8  INDEX_POSITION
 *      8       4  INDEX_LENGTH
 *     12       4  VERSION        {@link #VERSION}
 *     16       8  MAGIC          {@link #FOOTER_MAGIC} ("ALOFTOBJ")
 * </pre>
 *
 * <p>Why the CRCs sit where they do: a block's CRC covers its header fields too, so a reader
 * that fetched a block by position trusts nothing it did not check; the index's CRC covers the
 * entries, and the footer is checked by its magic and by the index having to end exactly where
 * the footer starts.
 *
 * <p>Stateless; the helpers are thread-safe and never move the position of a buffer they are
 * given.
 */
public final class ObjectFormat {

    /** Format version written by this code and the only one it reads. */
    public static final byte VERSION = 1;

    public static final int BLOCK_MAGIC = 0x414C4442; // "ALDB"
    public static final int BLOCK_MAGIC_OFFSET = 0;
    public static final int BLOCK_VERSION_OFFSET = 4;
    public static final int BLOCK_CRC_OFFSET = 5;
    /** The block CRC covers bytes from here to the end of the block. */
    public static final int BLOCK_CRC_START = 9;
    public static final int BLOCK_STREAM_ID_OFFSET = 9;
    public static final int BLOCK_START_OFFSET_OFFSET = 17;
    public static final int BLOCK_END_OFFSET_OFFSET = 25;
    public static final int BLOCK_BATCH_COUNT_OFFSET = 33;
    public static final int BLOCK_BODY_LENGTH_OFFSET = 37;
    public static final int BLOCK_HEADER_SIZE = 41;

    public static final int BATCH_BASE_OFFSET_OFFSET = 0;
    public static final int BATCH_COUNT_OFFSET = 8;
    public static final int BATCH_EPOCH_OFFSET = 12;
    public static final int BATCH_PAYLOAD_LENGTH_OFFSET = 20;
    public static final int BATCH_HEADER_SIZE = 24;

    public static final int INDEX_MAGIC = 0x414C4958; // "ALIX"
    public static final int INDEX_MAGIC_OFFSET = 0;
    public static final int INDEX_CRC_OFFSET = 4;
    /** The index CRC covers bytes from here to the end of the index. */
    public static final int INDEX_CRC_START = 8;
    public static final int INDEX_ENTRY_COUNT_OFFSET = 8;
    public static final int INDEX_HEADER_SIZE = 12;

    public static final int ENTRY_STREAM_ID_OFFSET = 0;
    public static final int ENTRY_START_OFFSET_OFFSET = 8;
    public static final int ENTRY_END_OFFSET_OFFSET = 16;
    public static final int ENTRY_EPOCH_OFFSET = 24;
    public static final int ENTRY_POSITION_OFFSET = 32;
    public static final int ENTRY_SIZE_OFFSET = 40;
    public static final int ENTRY_BATCH_COUNT_OFFSET = 44;
    public static final int ENTRY_SIZE = 48;

    public static final long FOOTER_MAGIC = 0x414C4F46_544F424AL; // "ALOFTOBJ"
    public static final int FOOTER_INDEX_POSITION_OFFSET = 0;
    public static final int FOOTER_INDEX_LENGTH_OFFSET = 8;
    public static final int FOOTER_VERSION_OFFSET = 12;
    public static final int FOOTER_MAGIC_OFFSET = 16;
    public static final int FOOTER_SIZE = 24;

    private ObjectFormat() {
    }

    /** CRC32C of {@code length} bytes of {@code buffer} starting at absolute index {@code from}. */
    static int crc32c(ByteBuffer buffer, int from, int length) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(from + length).position(from));
        return (int) crc.getValue();
    }

    /** Size of a batch once encoded in a block body. */
    static long encodedBatchSize(int payloadLength) {
        return (long) BATCH_HEADER_SIZE + payloadLength;
    }

    /** Writes one index entry at the buffer's position, advancing it. */
    static void putEntry(ByteBuffer dst, DataBlockIndex entry) {
        dst.putLong(entry.streamId())
                .putLong(entry.startOffset())
                .putLong(entry.endOffset())
                .putLong(entry.epoch())
                .putLong(entry.position())
                .putInt(entry.size())
                .putInt(entry.batchCount());
    }

    /**
     * Reads the entry at absolute index {@code at}; the values are checked later, as a whole
     * index, so this only decodes.
     */
    static DataBlockIndex getEntry(ByteBuffer src, int at) {
        return new DataBlockIndex(
                src.getLong(at + ENTRY_STREAM_ID_OFFSET),
                src.getLong(at + ENTRY_START_OFFSET_OFFSET),
                src.getLong(at + ENTRY_END_OFFSET_OFFSET),
                src.getLong(at + ENTRY_EPOCH_OFFSET),
                src.getLong(at + ENTRY_POSITION_OFFSET),
                src.getInt(at + ENTRY_SIZE_OFFSET),
                src.getInt(at + ENTRY_BATCH_COUNT_OFFSET));
    }
}
