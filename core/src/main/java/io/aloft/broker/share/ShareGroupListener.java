package io.aloft.broker.share;

/**
 * Told by the group coordinator when a share group member is gone (left, fenced, or its session
 * timed out), so this broker's share sessions of that member end and the records it holds become
 * available at once rather than at their lock timeouts. Called on a coordinator thread: must not
 * block. Members whose records live on other brokers are released there by their locks' timeouts
 * and by their share sessions' closing.
 */
@FunctionalInterface
public interface ShareGroupListener {
    ShareGroupListener NONE = (groupId, memberId) -> { };

    void memberLeft(String groupId, String memberId);
}
