package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectFormat.BATCH_HEADER_SIZE;
import static io.aloft.stream.object.ObjectFormat.BLOCK_HEADER_SIZE;

import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;

/**
 * One data block, read and checked: its header matched the index entry it was read for, its
 * CRC32C matched, and its batches parsed with contiguous offsets that fill the entry's range.
 *
 * <p><b>Thread-safety:</b> immutable, so safe to share between threads (and to cache).
 *
 * <p><b>Buffers:</b> the block owns the one buffer holding its bytes. The batches' payloads are
 * read-only views of that buffer, not copies: they stay valid as long as anything references
 * them, because the buffer is a heap buffer that is never reused or modified. Nothing needs to
 * be released. (Should blocks move to pooled or direct memory, this class becomes
 * reference-counted and a batch kept past the block's lifetime would have to be copied.)
 */
public final class DataBlock {

    private final long objectId;
    private final DataBlockIndex index;
    private final int retainedBytes;
    private final List<StreamRecordBatch> batches;

    private DataBlock(long objectId, DataBlockIndex index, int retainedBytes, List<StreamRecordBatch> batches) {
        this.objectId = objectId;
        this.index = index;
        this.retainedBytes = retainedBytes;
        this.batches = batches;
    }

    /**
     * Checks and parses a block.
     *
     * @param data the block's bytes as read, position to limit; ownership moves to the block,
     *     and the caller must not modify them afterwards. The block keeps the whole backing array
     *     reachable, and {@link #size()} counts all of it: pass a buffer of its own (as
     *     {@code ObjectStorage.getParts} returns), not a slice of a bigger one
     * @throws ObjectCorruptedException if the bytes are not the block {@code index} describes
     */
    static DataBlock decode(long objectId, DataBlockIndex index, ByteBuffer data) {
        // What the batches' views keep alive: the whole array behind a heap buffer.
        int retained = data.hasArray() ? data.array().length : data.capacity();
        ByteBuffer buf = data.slice().asReadOnlyBuffer();
        int size = buf.remaining();
        if (size != index.size()) {
            throw corrupt(objectId, index, "read " + size + " bytes, the index says " + index.size()
                    + " (object truncated?)");
        }
        if (size < BLOCK_HEADER_SIZE) {
            throw corrupt(objectId, index, size + " bytes is shorter than the " + BLOCK_HEADER_SIZE + "-byte header");
        }
        int magic = buf.getInt(ObjectFormat.BLOCK_MAGIC_OFFSET);
        if (magic != ObjectFormat.BLOCK_MAGIC) {
            throw corrupt(objectId, index, String.format("magic is 0x%08x, expected 0x%08x", magic,
                    ObjectFormat.BLOCK_MAGIC));
        }
        byte version = buf.get(ObjectFormat.BLOCK_VERSION_OFFSET);
        if (version != ObjectFormat.VERSION) {
            throw corrupt(objectId, index, "format version " + version + ", only " + ObjectFormat.VERSION
                    + " is known");
        }
        int stored = buf.getInt(ObjectFormat.BLOCK_CRC_OFFSET);
        // Over a writable view: CRC32C reads a heap buffer's array in place only if it can see it,
        // and copied a read-only one through a 4 KiB scratch array (every byte read, once more).
        ByteBuffer writable = data.hasArray() ? data.slice() : buf;
        int actual = ObjectFormat.crc32c(writable, ObjectFormat.BLOCK_CRC_START, size - ObjectFormat.BLOCK_CRC_START);
        if (stored != actual) {
            throw corrupt(objectId, index, String.format("CRC32C is 0x%08x, computed 0x%08x", stored, actual));
        }
        long streamId = buf.getLong(ObjectFormat.BLOCK_STREAM_ID_OFFSET);
        long start = buf.getLong(ObjectFormat.BLOCK_START_OFFSET_OFFSET);
        long end = buf.getLong(ObjectFormat.BLOCK_END_OFFSET_OFFSET);
        int count = buf.getInt(ObjectFormat.BLOCK_BATCH_COUNT_OFFSET);
        int bodyLength = buf.getInt(ObjectFormat.BLOCK_BODY_LENGTH_OFFSET);
        if (streamId != index.streamId() || start != index.startOffset() || end != index.endOffset()
                || count != index.batchCount() || bodyLength != size - BLOCK_HEADER_SIZE) {
            throw corrupt(objectId, index, "header (stream " + streamId + ", offsets [" + start + ", " + end + "), "
                    + count + " batches, body " + bodyLength + " bytes) does not match the index");
        }
        return new DataBlock(objectId, index, retained, parseBatches(objectId, index, buf));
    }

    private static List<StreamRecordBatch> parseBatches(long objectId, DataBlockIndex index, ByteBuffer buf) {
        StreamRecordBatch[] batches = new StreamRecordBatch[index.batchCount()];
        int at = BLOCK_HEADER_SIZE;
        long next = index.startOffset();
        for (int i = 0; i < batches.length; i++) {
            if (buf.limit() - at < BATCH_HEADER_SIZE) {
                throw corrupt(objectId, index, "batch " + i + " header runs past the block");
            }
            long base = buf.getLong(at + ObjectFormat.BATCH_BASE_OFFSET_OFFSET);
            int count = buf.getInt(at + ObjectFormat.BATCH_COUNT_OFFSET);
            long epoch = buf.getLong(at + ObjectFormat.BATCH_EPOCH_OFFSET);
            int length = buf.getInt(at + ObjectFormat.BATCH_PAYLOAD_LENGTH_OFFSET);
            int payloadAt = at + BATCH_HEADER_SIZE;
            if (base != next || count < 1 || length < 0 || length > buf.limit() - payloadAt) {
                throw corrupt(objectId, index, "batch " + i + " (base offset " + base + ", count " + count
                        + ", payload " + length + " bytes) does not continue at " + next + " within the block");
            }
            batches[i] = new StreamRecordBatch(index.streamId(), epoch, base, count, buf.slice(payloadAt, length));
            next = base + count;
            at = payloadAt + length;
        }
        if (next != index.endOffset() || at != buf.limit()) {
            throw corrupt(objectId, index, "batches end at offset " + next + " and byte " + at + ", expected "
                    + index.endOffset() + " and " + buf.limit());
        }
        return Collections.unmodifiableList(java.util.Arrays.asList(batches));
    }

    public long objectId() {
        return objectId;
    }

    /** The index entry the block was read for. */
    public DataBlockIndex index() {
        return index;
    }

    /** The block-cache key: (object id, block position). */
    public DataBlockKey key() {
        return index.key(objectId);
    }

    /**
     * Bytes this block keeps reachable, header included: the weight of this block in a cache.
     * The block's size when it was decoded from a buffer of its own; the whole backing array's
     * when it was decoded from a slice of a bigger one.
     */
    public int size() {
        return retainedBytes;
    }

    /** All batches, in offset order; payloads are views of this block's buffer. */
    public List<StreamRecordBatch> batches() {
        return batches;
    }

    /**
     * The batches overlapping {@code [startOffset, endOffset)}, in offset order (a view of
     * {@link #batches()}). The first may start before {@code startOffset}: batches are not split.
     */
    public List<StreamRecordBatch> batches(long startOffset, long endOffset) {
        int from = firstEndingAfter(startOffset);
        int to = from;
        while (to < batches.size() && batches.get(to).baseOffset() < endOffset) {
            to++;
        }
        return batches.subList(from, to);
    }

    private int firstEndingAfter(long offset) {
        int low = 0;
        int high = batches.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (batches.get(mid).lastOffsetExclusive() > offset) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    @Override
    public String toString() {
        return "DataBlock{object=" + objectId + ", " + index + "}";
    }

    private static ObjectCorruptedException corrupt(long objectId, DataBlockIndex index, String detail) {
        return new ObjectCorruptedException(objectId, index.position(), detail);
    }
}
