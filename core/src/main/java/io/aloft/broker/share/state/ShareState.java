package io.aloft.broker.share.state;

import java.util.List;

/**
 * A share partition's durable state (ReadShareGroupState's answer). Immutable.
 *
 * @param stateEpoch bumped by every initialize (AlterShareGroupOffsets, a new share partition); a
 *     write with an older one is refused (FENCED_STATE_EPOCH)
 * @param startOffset the share-partition start offset (SPSO): every offset below is done; -1 when
 *     the group coordinator initialized the state without choosing one, so the share partition
 *     applies {@code share.auto.offset.reset} when it loads
 * @param leaderEpoch the leader epoch of the last write (a write with an older one is refused,
 *     FENCED_LEADER_EPOCH: a share partition led elsewhere since)
 * @param batches the states of offsets at or above the start offset, sorted, not overlapping
 */
public record ShareState(int stateEpoch, long startOffset, int leaderEpoch, List<StateBatch> batches) {
    public ShareState {
        batches = List.copyOf(batches);
    }
}
