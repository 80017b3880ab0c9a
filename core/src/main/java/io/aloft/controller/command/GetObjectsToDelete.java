package io.aloft.controller.command;

/** See {@link io.aloft.stream.metadata.StreamMetadata#getObjectsToDelete}: a command, since it moves the clock. */
public record GetObjectsToDelete(long nowMs, long delayMs) {
}
