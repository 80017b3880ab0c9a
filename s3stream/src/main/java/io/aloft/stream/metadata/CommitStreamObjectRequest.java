package io.aloft.stream.metadata;

import java.util.List;

/**
 * @param object the new stream object
 * @param sourceObjectIds stream objects (of the same stream) it replaces
 * @param nowMs commit time
 */
public record CommitStreamObjectRequest(StreamObjectSpec object, List<Long> sourceObjectIds, long nowMs) {
    public CommitStreamObjectRequest {
        sourceObjectIds = List.copyOf(sourceObjectIds);
    }
}
