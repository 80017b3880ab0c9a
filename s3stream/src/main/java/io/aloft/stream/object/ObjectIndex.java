package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectFormat.ENTRY_SIZE;
import static io.aloft.stream.object.ObjectFormat.INDEX_HEADER_SIZE;

import io.aloft.stream.metadata.StreamRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The decoded, checked index of one object: entries sorted by (stream id, start offset), in the
 * order of the blocks in the object. Immutable, so thread-safe.
 */
final class ObjectIndex {

    private final DataBlockIndex[] entries;
    private final List<DataBlockIndex> entryList;
    private final List<StreamRange> ranges;
    private final long indexPosition;

    private ObjectIndex(DataBlockIndex[] entries, long indexPosition) {
        this.entries = entries;
        this.indexPosition = indexPosition;
        this.entryList = Collections.unmodifiableList(Arrays.asList(entries));
        this.ranges = computeRanges(entries);
    }

    /**
     * Decodes and checks an index block.
     *
     * @param index exactly the index block's bytes, position to limit (not moved)
     * @param indexPosition where the index starts in the object: the data blocks must tile
     *     {@code [0, indexPosition)} exactly
     * @throws ObjectCorruptedException if the bytes are not a valid index for such an object
     */
    static ObjectIndex decode(long objectId, ByteBuffer index, long indexPosition) {
        ByteBuffer buf = index.slice();
        int length = buf.remaining();
        if (length < INDEX_HEADER_SIZE) {
            throw corrupt(objectId, "index is " + length + " bytes, shorter than its " + INDEX_HEADER_SIZE
                    + "-byte header");
        }
        int magic = buf.getInt(ObjectFormat.INDEX_MAGIC_OFFSET);
        if (magic != ObjectFormat.INDEX_MAGIC) {
            throw corrupt(objectId, String.format("index magic is 0x%08x, expected 0x%08x", magic,
                    ObjectFormat.INDEX_MAGIC));
        }
        int stored = buf.getInt(ObjectFormat.INDEX_CRC_OFFSET);
        int actual = ObjectFormat.crc32c(buf, ObjectFormat.INDEX_CRC_START, length - ObjectFormat.INDEX_CRC_START);
        if (stored != actual) {
            throw corrupt(objectId, String.format("index CRC32C is 0x%08x, computed 0x%08x", stored, actual));
        }
        int count = buf.getInt(ObjectFormat.INDEX_ENTRY_COUNT_OFFSET);
        if (count < 0 || (long) INDEX_HEADER_SIZE + (long) count * ENTRY_SIZE != length) {
            throw corrupt(objectId, "index of " + length + " bytes claims " + count + " entries of " + ENTRY_SIZE
                    + " bytes");
        }
        DataBlockIndex[] entries = new DataBlockIndex[count];
        long expectedPosition = 0;
        for (int i = 0; i < count; i++) {
            DataBlockIndex entry = ObjectFormat.getEntry(buf, INDEX_HEADER_SIZE + i * ENTRY_SIZE);
            checkEntry(objectId, i, entry, i == 0 ? null : entries[i - 1], expectedPosition);
            entries[i] = entry;
            expectedPosition += entry.size();
        }
        if (expectedPosition != indexPosition) {
            throw corrupt(objectId, "data blocks end at " + expectedPosition + " but the index starts at "
                    + indexPosition);
        }
        return new ObjectIndex(entries, indexPosition);
    }

    private static void checkEntry(long objectId, int i, DataBlockIndex e, DataBlockIndex previous, long position) {
        String problem = null;
        if (e.position() != position) {
            problem = "is at " + e.position() + " but the previous block ends at " + position;
        } else if (e.batchCount() < 1) {
            problem = "has " + e.batchCount() + " batches";
        } else if (e.size() < ObjectFormat.BLOCK_HEADER_SIZE + (long) ObjectFormat.BATCH_HEADER_SIZE * e.batchCount()) {
            problem = "is " + e.size() + " bytes, too small for " + e.batchCount() + " batches";
        } else if (e.startOffset() < 0 || e.endOffset() - e.startOffset() < e.batchCount()) {
            problem = "has offsets [" + e.startOffset() + ", " + e.endOffset() + ") for " + e.batchCount() + " batches";
        } else if (previous != null && e.streamId() < previous.streamId()) {
            problem = "has stream " + e.streamId() + " after stream " + previous.streamId();
        } else if (previous != null && e.streamId() == previous.streamId() && e.startOffset() != previous.endOffset()) {
            problem = "starts at " + e.startOffset() + " but stream " + e.streamId() + "'s previous block ends at "
                    + previous.endOffset();
        } else if (previous != null && e.streamId() == previous.streamId() && e.epoch() < previous.epoch()) {
            problem = "has epoch " + e.epoch() + " below the previous block's " + previous.epoch();
        }
        if (problem != null) {
            throw corrupt(objectId, "index entry " + i + " " + problem + " (" + e + ")");
        }
    }

    /** Where the index starts, which is where the data blocks end. */
    long indexPosition() {
        return indexPosition;
    }

    /** All entries, in order. */
    List<DataBlockIndex> entries() {
        return entryList;
    }

    /** One range per stream, sorted by stream id. */
    List<StreamRange> streamRanges() {
        return ranges;
    }

    /**
     * The blocks of {@code streamId} overlapping {@code [startOffset, endOffset)}, in order,
     * stopping once their sizes add up to {@code maxBytes} (so at least one block if any
     * overlaps).
     */
    List<DataBlockIndex> find(long streamId, long startOffset, long endOffset, long maxBytes) {
        int i = firstEndingAfter(streamId, startOffset);
        List<DataBlockIndex> found = new ArrayList<>();
        long bytes = 0;
        for (; i < entries.length && bytes < maxBytes; i++) {
            DataBlockIndex e = entries[i];
            if (e.streamId() != streamId || e.startOffset() >= endOffset) {
                break;
            }
            found.add(e);
            bytes += e.size();
        }
        return found;
    }

    /** Lowest i whose entry is past (streamId, offset): a later stream, or the stream ending after offset. */
    private int firstEndingAfter(long streamId, long offset) {
        int low = 0;
        int high = entries.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            DataBlockIndex e = entries[mid];
            boolean after = e.streamId() > streamId || (e.streamId() == streamId && e.endOffset() > offset);
            if (after) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    private static List<StreamRange> computeRanges(DataBlockIndex[] entries) {
        List<StreamRange> ranges = new ArrayList<>();
        int i = 0;
        while (i < entries.length) {
            int first = i;
            while (i + 1 < entries.length && entries[i + 1].streamId() == entries[first].streamId()) {
                i++;
            }
            DataBlockIndex last = entries[i];
            ranges.add(new StreamRange(last.streamId(), last.epoch(), entries[first].startOffset(), last.endOffset()));
            i++;
        }
        return List.copyOf(ranges);
    }

    private static ObjectCorruptedException corrupt(long objectId, String detail) {
        return new ObjectCorruptedException(objectId, ObjectCorruptedException.NO_BLOCK, detail);
    }
}
