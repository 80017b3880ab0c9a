package io.aloft.stream.object;

/**
 * One index entry: where a data block sits in its object and which offsets of which stream it
 * holds. Immutable. Entries read from an object have been checked against the object's size and
 * each other; an entry built by hand is checked when it is used to read a block.
 *
 * @param streamId the stream whose batches the block holds
 * @param startOffset base offset of the block's first batch
 * @param endOffset offset just past the block's last batch (exclusive)
 * @param epoch stream epoch of the block's last batch
 * @param position byte offset of the block in the object
 * @param size bytes of the block, header included
 * @param batchCount batches in the block
 */
public record DataBlockIndex(long streamId, long startOffset, long endOffset, long epoch, long position, int size,
        int batchCount) {

    /** The key of this block in a block cache, for a block of object {@code objectId}. */
    public DataBlockKey key(long objectId) {
        return new DataBlockKey(objectId, position);
    }
}
