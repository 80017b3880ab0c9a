package io.aloft.stream.metadata;

import java.util.List;
import java.util.Objects;

/**
 * @param object the new stream object
 * @param sourceObjectIds stream objects (of the same stream) it replaces
 * @param nowMs commit time
 */
public record CommitStreamObjectRequest(StreamObjectSpec object, List<Long> sourceObjectIds, long nowMs) {
    public CommitStreamObjectRequest {
        // Requests also arrive decoded from the network: a missing object must fail here, not in the state.
        Objects.requireNonNull(object, "object");
        sourceObjectIds = List.copyOf(sourceObjectIds);
    }
}
