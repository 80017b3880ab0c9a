package io.aloft.stream.object;

/**
 * Identifies a data block across all objects: objects are immutable and their ids are never
 * reused, so (object id, block position) names the same bytes forever. Meant as a block-cache
 * key. Immutable.
 */
public record DataBlockKey(long objectId, long position) {
}
