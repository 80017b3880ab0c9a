package io.aloft.stream.metadata;

import java.util.List;

/**
 * An object in object storage as metadata knows it. Immutable.
 *
 * @param objectId id; the storage key is derived from it alone (an expired prepared object has no
 *     known type, yet must still be deletable)
 * @param type stream-set or stream object; {@link Type#UNKNOWN} until committed
 * @param state lifecycle state
 * @param size bytes (0 until committed)
 * @param ranges the stream ranges it holds (one for a stream object, none until committed)
 * @param nodeId the node that wrote it (for a prepared object, the node that prepared it)
 * @param committedAtMs commit time, -1 before
 * @param markedForDeletionAtMs when it was marked for deletion; -1 if not marked, and also -1 for
 *     a moment after a command that carries no time (trim, delete stream) marked it: the next
 *     command that carries time stamps it with that time, so the deletion delay is never shortened
 */
public record S3Object(long objectId, Type type, State state, long size, List<StreamRange> ranges, int nodeId,
        long committedAtMs, long markedForDeletionAtMs) {

    public enum Type {
        STREAM_SET,
        STREAM,
        /** Prepared, never committed: whether it would have been stream-set or stream is not known. */
        UNKNOWN
    }

    public enum State { PREPARED, COMMITTED, MARKED_FOR_DELETION }

    public S3Object {
        ranges = List.copyOf(ranges);
    }
}
