package io.aloft.stream.metadata;

import java.util.Objects;

/**
 * One object as {@link StreamMetadataState} stores it: the public view plus the bookkeeping that
 * only the state machine needs. Immutable; part of {@link StreamMetadataSnapshot}.
 *
 * @param object the object
 * @param preparedUntilMs when a prepared object that is still uncommitted expires (prepare time plus
 *     ttl, saturating); kept after commit as history
 * @param orderKey position in its node's stream-set object list (oldest first); a compacted object
 *     inherits the lowest key of the objects it replaces, so it stays where its data was. -1 for
 *     stream objects and uncommitted objects
 */
public record StoredObject(S3Object object, long preparedUntilMs, long orderKey) {

    public StoredObject {
        Objects.requireNonNull(object, "object");
    }

    public long id() {
        return object.objectId();
    }

    StoredObject withObject(S3Object newObject) {
        return new StoredObject(newObject, preparedUntilMs, orderKey);
    }

    /** This object marked for deletion at {@code atMs} (-1: not stamped yet). */
    StoredObject markedForDeletion(long atMs) {
        S3Object o = object;
        return withObject(new S3Object(o.objectId(), o.type(), S3Object.State.MARKED_FOR_DELETION, o.size(),
                o.ranges(), o.nodeId(), o.committedAtMs(), atMs));
    }
}
