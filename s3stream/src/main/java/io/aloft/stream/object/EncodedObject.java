package io.aloft.stream.object;

import java.nio.ByteBuffer;

/**
 * An object encoded in memory by {@link ObjectWriter}: its bytes and its summary. Immutable.
 *
 * @param summary what the object holds
 * @param data the whole object, read-only, position 0 to limit {@code summary.size()}; a heap
 *     buffer, so there is nothing to release. The accessor returns a fresh view each time, which
 *     the caller may consume.
 */
public record EncodedObject(ObjectSummary summary, ByteBuffer data) {
    public EncodedObject {
        data = data.asReadOnlyBuffer();
    }

    /** A fresh read-only view of the object's bytes, position 0. */
    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }
}
