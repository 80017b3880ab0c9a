package io.aloft.stream.metadata;

/** @param epoch must be the stream's current epoch */
public record DeleteStreamRequest(long streamId, long epoch) {
}
