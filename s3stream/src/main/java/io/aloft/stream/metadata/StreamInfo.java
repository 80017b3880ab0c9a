package io.aloft.stream.metadata;

/**
 * A stream's state.
 *
 * @param startOffset first offset still readable (after trims)
 * @param endOffset offset just past the last committed data
 * @param ownerNodeId node holding it open, or -1
 */
public record StreamInfo(long streamId, long epoch, State state, long startOffset, long endOffset, int ownerNodeId) {
    public enum State { OPEN, CLOSED }
}
