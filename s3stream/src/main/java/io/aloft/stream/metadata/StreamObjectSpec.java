package io.aloft.stream.metadata;

/** A stream object (one stream's contiguous range) uploaded alongside, or by, a commit. */
public record StreamObjectSpec(long objectId, long objectSize, StreamRange range) {
}
