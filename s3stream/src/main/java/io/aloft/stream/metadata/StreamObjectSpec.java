package io.aloft.stream.metadata;

import java.util.Objects;

/** A stream object (one stream's contiguous range) uploaded alongside, or by, a commit. */
public record StreamObjectSpec(long objectId, long objectSize, StreamRange range) {
    public StreamObjectSpec {
        // Requests also arrive decoded from the network: a missing range must fail here, not in the state.
        Objects.requireNonNull(range, "range");
    }
}
