package io.aloft.broker.share.state;

import java.util.Objects;

/**
 * One record of {@code __share_group_state}: the whole state of one share partition after a change
 * (a snapshot: compaction keeps the last one per key, and replay keeps the last one it sees), or a
 * tombstone when the state was deleted. Immutable.
 *
 * @param state the state, or null for a tombstone
 * @param deliveryCompleteCount what the last write said about records acknowledged or archived at or
 *     above the start offset (-1: not counted), for ReadShareGroupStateSummary v1
 */
record ShareStateRecord(SharePartitionKey key, ShareState state, int deliveryCompleteCount) {
    ShareStateRecord {
        Objects.requireNonNull(key, "key");
    }

    static ShareStateRecord tombstone(SharePartitionKey key) {
        return new ShareStateRecord(key, null, -1);
    }

    boolean isTombstone() {
        return state == null;
    }

    ShareStateSummary summary() {
        return new ShareStateSummary(state.stateEpoch(), state.startOffset(), state.leaderEpoch(),
                deliveryCompleteCount);
    }
}
