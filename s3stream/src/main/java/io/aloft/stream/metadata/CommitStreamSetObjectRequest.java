package io.aloft.stream.metadata;

import java.util.List;

/**
 * @param nodeId the uploading node
 * @param objectId a prepared id, or -1 when the upload produced only stream objects
 * @param objectSize bytes of the stream-set object
 * @param ranges the streams' ranges in the stream-set object, at most one per stream
 * @param streamObjects stream objects split out of the same upload
 * @param compactedObjectIds stream-set objects this one replaces (compaction), else empty
 * @param nowMs commit time, recorded on the objects
 */
public record CommitStreamSetObjectRequest(int nodeId, long objectId, long objectSize, List<StreamRange> ranges,
        List<StreamObjectSpec> streamObjects, List<Long> compactedObjectIds, long nowMs) {
    public CommitStreamSetObjectRequest {
        ranges = List.copyOf(ranges);
        streamObjects = List.copyOf(streamObjects);
        compactedObjectIds = List.copyOf(compactedObjectIds);
    }
}
