package io.aloft.stream.metadata;

/**
 * Part of one stream held by an object.
 *
 * @param streamId the stream
 * @param epoch the stream epoch of the writer that uploaded it
 * @param startOffset first offset (inclusive)
 * @param endOffset offset just past the range (exclusive)
 */
public record StreamRange(long streamId, long epoch, long startOffset, long endOffset) {
    public StreamRange {
        if (endOffset <= startOffset) {
            throw new IllegalArgumentException("empty range [" + startOffset + ", " + endOffset + ") of stream "
                    + streamId);
        }
    }
}
