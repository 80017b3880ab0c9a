package io.aloft.stream.object;

/**
 * An object's bytes do not follow {@link ObjectFormat}: bad magic or version, a CRC mismatch, a
 * truncated object, an index pointing outside the object. The object cannot be trusted; reading
 * it again will fail again. Immutable.
 */
public class ObjectCorruptedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** {@link #blockPosition()} when the footer or the index is corrupt rather than a block. */
    public static final long NO_BLOCK = -1;

    private final long objectId;
    private final long blockPosition;

    /**
     * @param blockPosition position of the corrupt data block, or {@link #NO_BLOCK}
     */
    public ObjectCorruptedException(long objectId, long blockPosition, String detail) {
        super("object " + objectId + (objectId >= 0 ? " (key " + ObjectKeys.key(objectId) + ")" : "")
                + (blockPosition == NO_BLOCK ? "" : " block at " + blockPosition) + " is corrupt: " + detail);
        this.objectId = objectId;
        this.blockPosition = blockPosition;
    }

    public long objectId() {
        return objectId;
    }

    /** Position of the corrupt data block, or {@link #NO_BLOCK} for the footer or index. */
    public long blockPosition() {
        return blockPosition;
    }
}
