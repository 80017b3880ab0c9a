package io.aloft.stream.metadata;

/**
 * @param epoch must be the stream's current epoch
 * @param newStartOffset the stream's new start, at most its end offset; at or below the current start is a no-op
 */
public record TrimStreamRequest(long streamId, long epoch, long newStartOffset) {
}
