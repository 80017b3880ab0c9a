package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectFormat.FOOTER_SIZE;
import static io.aloft.stream.object.ObjectFormat.INDEX_HEADER_SIZE;

import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.storage.ObjectStorage;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads one object (layout: {@link ObjectFormat}) from an {@link ObjectStorage}.
 *
 * <p>Opening makes no request. The footer and index are fetched on first use, once: one ranged
 * GET of the object's tail ({@code FOOTER_SIZE} plus a guess of the index size, by default
 * {@value #INDEX_READ_SIZE_DEFAULT} bytes), and a second GET for the rest of the index only when
 * the guess was short. A failed fetch is retried by the next call, unless the object was found
 * corrupt, which is final. Each {@link #readBlock} is one ranged GET; blocks are read with
 * {@link ObjectStorage#getParts}, the index with plain ranged gets. Nothing is cached beyond
 * the index: a block cache belongs in front of {@link #readBlock}, keyed by
 * {@link DataBlockKey}.
 *
 * <p><b>Thread-safety:</b> thread-safe. Concurrent first calls share one fetch of the index.
 * Futures complete on storage threads, where blocks are also checked and parsed.
 *
 * <p><b>Buffers:</b> the blocks returned belong to the caller; see {@link DataBlock} for their
 * batches' payloads, which are views of the block's buffer.
 *
 * <p><b>Errors:</b> bytes that break the format (bad magic, version or CRC, an object shorter
 * than its size, an index pointing outside the object) fail the future with
 * {@link ObjectCorruptedException}; storage failures with the storage's exceptions.
 */
public final class ObjectReader {

    /** Default guess of the index size read along with the footer. */
    public static final int INDEX_READ_SIZE_DEFAULT = 64 * 1024;

    private final ObjectStorage storage;
    private final long objectId;
    private final String key;
    private final long size;
    private final int indexReadSize;
    private final AtomicReference<CompletableFuture<ObjectIndex>> index = new AtomicReference<>();

    private ObjectReader(ObjectStorage storage, long objectId, long size, int indexReadSize) {
        this.storage = storage;
        this.objectId = objectId;
        this.key = ObjectKeys.key(objectId);
        this.size = size;
        this.indexReadSize = indexReadSize;
    }

    /** {@link #open(ObjectStorage, long, long, int)} with the default index guess. */
    public static ObjectReader open(ObjectStorage storage, long objectId, long objectSize) {
        return open(storage, objectId, objectSize, INDEX_READ_SIZE_DEFAULT);
    }

    /**
     * A reader of object {@code objectId}; makes no request.
     *
     * @param objectSize the object's size as metadata recorded it
     * @param indexReadSize bytes of index to read along with the footer in the first GET
     * @throws IllegalArgumentException if the id or size is negative, or the guess is not positive
     */
    public static ObjectReader open(ObjectStorage storage, long objectId, long objectSize, int indexReadSize) {
        if (objectSize < 0) {
            throw new IllegalArgumentException("object " + objectId + " size must be >= 0, got " + objectSize);
        }
        if (indexReadSize <= 0) {
            throw new IllegalArgumentException("indexReadSize must be positive, got " + indexReadSize);
        }
        return new ObjectReader(storage, objectId, objectSize, indexReadSize);
    }

    public long objectId() {
        return objectId;
    }

    /** The storage key read from. */
    public String key() {
        return key;
    }

    /** The object's size in bytes, as given when opened. */
    public long size() {
        return size;
    }

    /** Every block's index entry, sorted by (stream id, start offset). */
    public CompletableFuture<List<DataBlockIndex>> index() {
        return loaded().thenApply(ObjectIndex::entries);
    }

    /** One range per stream held, sorted by stream id; the epoch is that of the stream's last batch. */
    public CompletableFuture<List<StreamRange>> streamRanges() {
        return loaded().thenApply(ObjectIndex::streamRanges);
    }

    /**
     * The blocks of {@code streamId} that overlap {@code [startOffset, endOffset)}, in offset
     * order, stopping once the selected blocks add up to {@code maxBytes} or more: at least one
     * block is selected if any overlaps. Empty if the object holds none of that range.
     *
     * @param endOffset exclusive; {@link Long#MAX_VALUE} for "to the end"
     * @param maxBytes budget in block bytes (headers included)
     * @throws IllegalArgumentException if {@code startOffset < 0}, {@code endOffset < startOffset}
     *     or {@code maxBytes <= 0}
     */
    public CompletableFuture<List<DataBlockIndex>> find(long streamId, long startOffset, long endOffset, long maxBytes) {
        if (startOffset < 0 || endOffset < startOffset || maxBytes <= 0) {
            throw new IllegalArgumentException("find(stream " + streamId + ", [" + startOffset + ", " + endOffset
                    + "), maxBytes " + maxBytes + "): need 0 <= start <= end and maxBytes > 0");
        }
        return loaded().thenApply(idx -> idx.find(streamId, startOffset, endOffset, maxBytes));
    }

    /**
     * Reads and checks one block: one ranged GET. Does not need the index loaded.
     *
     * @param block an entry of this object's index
     * @throws IllegalArgumentException if the entry does not fit inside this object's data blocks
     *     (checked against the index if it is loaded, else against the object's size)
     */
    public CompletableFuture<DataBlock> readBlock(DataBlockIndex block) {
        CompletableFuture<ObjectIndex> loaded = index.get();
        long dataEnd = loaded != null && loaded.isDone() && !loaded.isCompletedExceptionally()
                ? loaded.join().indexPosition()
                : size - FOOTER_SIZE - INDEX_HEADER_SIZE; // the tightest bound known without the index
        if (block.position() < 0 || block.size() < ObjectFormat.BLOCK_HEADER_SIZE
                || block.position() > dataEnd - block.size()) {
            throw new IllegalArgumentException("block " + block + " is not inside object " + objectId + " of "
                    + size + " bytes");
        }
        return storage.getParts(key, block.position(), new int[] {block.size()})
                .thenApply(parts -> DataBlock.decode(objectId, block, parts.get(0)));
    }

    /**
     * Reads and checks blocks that lie back to back in this object with ONE ranged GET (catch-up
     * readers and readahead read runs of blocks; one request per 512 KiB block costs more than
     * the transfer), into one buffer per block ({@link ObjectStorage#getParts}). Each block is
     * checked as {@link #readBlock} checks it; a block cut short by the object's end fails the
     * future with {@link ObjectCorruptedException}.
     *
     * @param blocks entries of this object's index, each starting where the previous one ends
     * @throws IllegalArgumentException if the list is empty or the blocks are not contiguous
     */
    public CompletableFuture<List<DataBlock>> readBlocks(List<DataBlockIndex> blocks) {
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("no blocks to read from object " + objectId);
        }
        for (int i = 1; i < blocks.size(); i++) {
            DataBlockIndex previous = blocks.get(i - 1);
            if (blocks.get(i).position() != previous.position() + previous.size()) {
                throw new IllegalArgumentException("blocks " + previous + " and " + blocks.get(i) + " of object "
                        + objectId + " are not back to back");
            }
        }
        if (blocks.size() == 1) {
            return readBlock(blocks.get(0)).thenApply(List::of);
        }
        DataBlockIndex first = blocks.get(0);
        DataBlockIndex last = blocks.get(blocks.size() - 1);
        long end = last.position() + last.size();
        if (first.position() < 0 || end > size - FOOTER_SIZE - INDEX_HEADER_SIZE) {
            throw new IllegalArgumentException("blocks " + first + " .. " + last + " are not inside object "
                    + objectId + " of " + size + " bytes");
        }
        int[] sizes = new int[blocks.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = blocks.get(i).size();
        }
        // One buffer per block: a cached block must not keep the other blocks of its GET alive.
        return storage.getParts(key, first.position(), sizes).thenApply(parts -> {
            List<DataBlock> out = new java.util.ArrayList<>(blocks.size());
            for (int i = 0; i < sizes.length; i++) {
                out.add(DataBlock.decode(objectId, blocks.get(i), parts.get(i)));
            }
            return out;
        });
    }

    @Override
    public String toString() {
        return "ObjectReader{object=" + objectId + ", key=" + key + ", size=" + size + "}";
    }

    private CompletableFuture<ObjectIndex> loaded() {
        while (true) {
            CompletableFuture<ObjectIndex> current = index.get();
            if (current != null) {
                return current;
            }
            CompletableFuture<ObjectIndex> mine = new CompletableFuture<>();
            if (!index.compareAndSet(null, mine)) {
                continue;
            }
            fetchIndex().whenComplete((idx, error) -> {
                if (error == null) {
                    mine.complete(idx);
                    return;
                }
                Throwable cause = unwrap(error);
                if (!(cause instanceof ObjectCorruptedException)) {
                    index.compareAndSet(mine, null); // transient: let the next call try again
                }
                mine.completeExceptionally(cause);
            });
            return mine;
        }
    }

    private CompletableFuture<ObjectIndex> fetchIndex() {
        if (size < FOOTER_SIZE + INDEX_HEADER_SIZE) {
            return CompletableFuture.failedFuture(corrupt("size " + size + " is smaller than a footer and an empty"
                    + " index (" + (FOOTER_SIZE + INDEX_HEADER_SIZE) + " bytes)"));
        }
        long tailStart = Math.max(0, size - FOOTER_SIZE - (long) indexReadSize);
        try {
            return storage.get(key, tailStart, size).thenCompose(tail -> decodeTail(tailStart, tail));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Parses the footer at the end of {@code tail} (the object's bytes from {@code tailStart}). */
    private CompletableFuture<ObjectIndex> decodeTail(long tailStart, ByteBuffer read) {
        ByteBuffer tail = read.slice(); // absolute indexes below count from the start of the tail
        if (tail.remaining() != size - tailStart) {
            throw corrupt("object is shorter than its size " + size + ": reading from " + tailStart + " returned "
                    + tail.remaining() + " bytes (truncated?)");
        }
        int footerAt = tail.limit() - FOOTER_SIZE;
        long magic = tail.getLong(footerAt + ObjectFormat.FOOTER_MAGIC_OFFSET);
        if (magic != ObjectFormat.FOOTER_MAGIC) {
            throw corrupt(String.format("footer magic is 0x%016x, expected 0x%016x (not an object, or the size"
                    + " is wrong)", magic, ObjectFormat.FOOTER_MAGIC));
        }
        int version = tail.getInt(footerAt + ObjectFormat.FOOTER_VERSION_OFFSET);
        if (version != ObjectFormat.VERSION) {
            throw corrupt("format version " + version + ", only " + ObjectFormat.VERSION + " is known");
        }
        long indexPosition = tail.getLong(footerAt + ObjectFormat.FOOTER_INDEX_POSITION_OFFSET);
        int indexLength = tail.getInt(footerAt + ObjectFormat.FOOTER_INDEX_LENGTH_OFFSET);
        long indexEnd = size - FOOTER_SIZE;
        if (indexLength < INDEX_HEADER_SIZE || indexPosition < 0 || indexPosition != indexEnd - indexLength) {
            throw corrupt("footer puts the index at " + indexPosition + " with " + indexLength + " bytes, but it must"
                    + " end at " + indexEnd + ", where the footer starts");
        }
        int inTail = (int) (indexEnd - tailStart);
        if (indexLength <= inTail) {
            ByteBuffer bytes = tail.slice(inTail - indexLength, indexLength);
            return CompletableFuture.completedFuture(ObjectIndex.decode(objectId, bytes, indexPosition));
        }
        // The guess fell short: fetch only the part of the index the first read missed.
        return storage.get(key, indexPosition, tailStart).thenApply(head -> {
            if (head.remaining() != tailStart - indexPosition) {
                throw corrupt("object is shorter than its size " + size + ": index read returned " + head.remaining()
                        + " of " + (tailStart - indexPosition) + " bytes");
            }
            ByteBuffer bytes = ByteBuffer.allocate(indexLength);
            bytes.put(head).put(tail.slice(0, inTail)).flip();
            return ObjectIndex.decode(objectId, bytes, indexPosition);
        });
    }

    private ObjectCorruptedException corrupt(String detail) {
        return new ObjectCorruptedException(objectId, ObjectCorruptedException.NO_BLOCK, detail);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
