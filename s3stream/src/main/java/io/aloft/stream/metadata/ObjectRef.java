package io.aloft.stream.metadata;

/** An object holding part of one stream: the object, and the range of that stream it holds. */
public record ObjectRef(long objectId, S3Object.Type type, long objectSize, StreamRange range) {
}
