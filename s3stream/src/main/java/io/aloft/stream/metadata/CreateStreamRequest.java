package io.aloft.stream.metadata;

/** @param nodeId the node asking, for the log */
public record CreateStreamRequest(int nodeId) {
}
