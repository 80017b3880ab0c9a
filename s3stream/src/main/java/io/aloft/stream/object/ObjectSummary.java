package io.aloft.stream.object;

import io.aloft.stream.metadata.StreamRange;
import java.util.List;

/**
 * What an object holds, as metadata needs it to commit the object. Immutable.
 *
 * @param objectId the object's id
 * @param size the object's size in bytes
 * @param ranges one range per stream, sorted by stream id; the epoch is that of the stream's
 *     last batch in the object
 */
public record ObjectSummary(long objectId, long size, List<StreamRange> ranges) {
    public ObjectSummary {
        ranges = List.copyOf(ranges);
    }
}
