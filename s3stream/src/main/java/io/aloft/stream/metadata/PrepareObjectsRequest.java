package io.aloft.stream.metadata;

/**
 * @param nodeId the node that will upload the objects, recorded on them (a stream-set commit records its own)
 * @param count how many consecutive ids to allocate, 1 to {@link StreamMetadataState#MAX_PREPARE_COUNT}
 * @param ttlMs how long the ids stay prepared before an uncommitted object is marked for deletion
 * @param nowMs the caller's clock, recorded with the prepare (commands carry time so replicas agree)
 */
public record PrepareObjectsRequest(int nodeId, int count, long ttlMs, long nowMs) {
}
