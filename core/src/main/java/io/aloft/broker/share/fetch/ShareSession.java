package io.aloft.broker.share.fetch;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One share session (KIP-932): a member's partitions on this broker and the epoch its next
 * request must carry. Externally synchronized: every field is guarded by the
 * {@link ShareSessionCache}'s monitor, which alone reads and changes it.
 */
final class ShareSession {
    final String groupId;
    final String memberId;
    /** The epoch the next ShareFetch / ShareAcknowledge must carry. */
    int epoch;
    long lastUsedMs;
    /** In the order they were added: answers follow it. */
    final Set<SessionPartition> partitions;

    ShareSession(String groupId, String memberId, List<SessionPartition> partitions, long nowMs) {
        this.groupId = groupId;
        this.memberId = memberId;
        this.partitions = new LinkedHashSet<>(partitions);
        this.epoch = ShareSessionCache.nextEpoch(ShareSessionCache.INITIAL_EPOCH);
        this.lastUsedMs = nowMs;
    }
}
