package io.aloft.stream.metadata;

import java.util.List;

/**
 * The whole of a {@link StreamMetadataState} as plain values: what a replicated state machine
 * writes to its snapshot and reads back with {@link StreamMetadataState#restore}. Derived indexes
 * are not part of it; they are rebuilt on restore. Immutable.
 *
 * @param nextStreamId the id the next created stream gets
 * @param nextObjectId the id the next prepared object gets
 * @param nextOrderKey the next stream-set object order key
 * @param clockMs the latest time any applied command carried (time never runs backwards in the state)
 * @param streams every stream, by id
 * @param objects every object not yet forgotten by {@code objectsDeleted}, by id
 */
public record StreamMetadataSnapshot(long nextStreamId, long nextObjectId, long nextOrderKey, long clockMs,
        List<StreamInfo> streams, List<StoredObject> objects) {

    public StreamMetadataSnapshot {
        streams = List.copyOf(streams);
        objects = List.copyOf(objects);
    }

    /**
     * A canonical text form, one line per stream and per object in id order, so two states can be
     * compared in tests and diffs read by people.
     */
    public String dump() {
        StringBuilder sb = new StringBuilder();
        sb.append("nextStreamId=").append(nextStreamId).append(" nextObjectId=").append(nextObjectId)
                .append(" nextOrderKey=").append(nextOrderKey).append(" clockMs=").append(clockMs).append('\n');
        for (StreamInfo s : streams) {
            sb.append("stream ").append(s.streamId()).append(" epoch=").append(s.epoch()).append(' ')
                    .append(s.state()).append(" owner=").append(s.ownerNodeId()).append(" [")
                    .append(s.startOffset()).append(", ").append(s.endOffset()).append(")\n");
        }
        for (StoredObject stored : objects) {
            S3Object o = stored.object();
            sb.append("object ").append(o.objectId()).append(' ').append(o.type()).append(' ').append(o.state())
                    .append(" size=").append(o.size()).append(" node=").append(o.nodeId())
                    .append(" committedAt=").append(o.committedAtMs())
                    .append(" markedAt=").append(o.markedForDeletionAtMs())
                    .append(" preparedUntil=").append(stored.preparedUntilMs())
                    .append(" order=").append(stored.orderKey()).append(" ranges=");
            for (StreamRange r : o.ranges()) {
                sb.append(r.streamId()).append('@').append(r.epoch()).append('[').append(r.startOffset())
                        .append(',').append(r.endOffset()).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
