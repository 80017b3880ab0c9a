package io.aloft.stream.metadata;

/**
 * @param streamId the stream to open
 * @param epoch the new owner's epoch, higher than the stream's current one
 * @param nodeId the new owner
 */
public record OpenStreamRequest(long streamId, long epoch, int nodeId) {
}
