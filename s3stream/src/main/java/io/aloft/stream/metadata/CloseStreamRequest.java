package io.aloft.stream.metadata;

/**
 * @param epoch must be the stream's current epoch
 * @param nodeId the closing node, for the log; the epoch alone identifies the owner
 */
public record CloseStreamRequest(long streamId, long epoch, int nodeId) {
}
