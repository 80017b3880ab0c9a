package io.aloft.stream.metadata;

import java.util.List;

/**
 * Replaces what one open stream holds at offsets {@code [startOffset, endOffset)} with new stream
 * objects: the commit of a rewrite that keeps every offset where it was but changes the bytes, such
 * as the broker's key compaction (the log cleaner rewrites a range of a partition's batches,
 * keeping the latest record of each key). The rules are in {@code RangeReplacementPlanner}.
 *
 * @param streamId the stream
 * @param epoch the stream's current epoch: a fenced owner must not replace its old data
 * @param startOffset first offset replaced
 * @param endOffset offset just past the replaced range, at most the stream's committed end
 * @param objects the new stream objects (prepared ids), whose ranges tile the range exactly, in order
 * @param nowMs commit time, recorded on the new objects and on the marks of the replaced ones
 */
public record ReplaceStreamRangeRequest(long streamId, long epoch, long startOffset, long endOffset,
        List<StreamObjectSpec> objects, long nowMs) {
    public ReplaceStreamRangeRequest {
        // Requests also arrive decoded from the network: a missing list must fail here, not in the state.
        objects = List.copyOf(objects);
    }
}
