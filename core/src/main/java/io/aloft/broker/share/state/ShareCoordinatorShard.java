package io.aloft.broker.share.state;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorShard;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.FencedStateEpochException;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * The share partitions' state of one {@code __share_group_state} partition, and the operations on
 * it, with Kafka 4.3's rules (each checked against Kafka by sending it the same requests):
 * <ul>
 *   <li>initialize replaces the state (start offset, no batches, leader epoch 0), refused
 *       (FENCED_STATE_EPOCH) when the stored state epoch is newer than the request's;</li>
 *   <li>read records the reader's leader epoch when newer (a write, so it is durable before the
 *       answer) and is refused (FENCED_LEADER_EPOCH) when older; -1 checks nothing;</li>
 *   <li>write is refused for a share partition never initialized (INVALID_REQUEST), with an older
 *       leader epoch (FENCED_LEADER_EPOCH), or with an older state epoch (FENCED_STATE_EPOCH); a newer
 *       epoch of either kind is taken and not stored, as Kafka does; it moves the start offset (-1
 *       keeps it) and merges the batches ({@link StateBatches});</li>
 *   <li>delete forgets the state (a tombstone); deleting none is fine.</li>
 * </ul>
 * Every change is one {@link ShareStateRecord} holding the share partition's whole state, applied
 * through {@link #replay} (the runtime replays an operation's records at once), so the state after a
 * reload is the state before it.
 *
 * <p>Confined to the shard's thread (see {@link CoordinatorShard}).
 */
final class ShareCoordinatorShard implements CoordinatorShard<ShareStateRecord> {
    static final String UNINITIALIZED_WRITE = "Write operation on uninitialized share partition not allowed.";

    private final Map<SharePartitionKey, ShareStateRecord> states = new HashMap<>();

    @Override
    public void replay(ShareStateRecord record) {
        if (record.isTombstone()) {
            states.remove(record.key());
        } else {
            states.put(record.key(), record);
        }
    }

    CoordinatorResult<Void, ShareStateRecord> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        ShareStateRecord stored = states.get(key);
        if (stored != null && stored.state().stateEpoch() > stateEpoch) {
            throw new FencedStateEpochException(key.coordinatorKey() + ": state epoch " + stateEpoch
                    + " is older than the stored " + stored.state().stateEpoch());
        }
        ShareState fresh = new ShareState(stateEpoch, startOffset, 0, List.of());
        // Kafka's summary counts nothing delivered yet once a start offset is set; unknown without one.
        return CoordinatorResult.of(List.of(new ShareStateRecord(key, fresh, startOffset < 0 ? -1 : 0)), null);
    }

    CoordinatorResult<Optional<ShareState>, ShareStateRecord> read(SharePartitionKey key, int leaderEpoch) {
        ShareStateRecord stored = states.get(key);
        if (stored == null) {
            return CoordinatorResult.of(Optional.empty());
        }
        ShareState s = stored.state();
        checkLeaderEpoch(key, s, leaderEpoch);
        if (leaderEpoch <= s.leaderEpoch()) {
            return CoordinatorResult.of(Optional.of(s));
        }
        ShareState updated = new ShareState(s.stateEpoch(), s.startOffset(), leaderEpoch, s.batches());
        return CoordinatorResult.of(List.of(new ShareStateRecord(key, updated, stored.deliveryCompleteCount())),
                Optional.of(updated));
    }

    CoordinatorResult<Void, ShareStateRecord> write(SharePartitionKey key, int stateEpoch, int leaderEpoch,
            long startOffset, int deliveryCompleteCount, List<StateBatch> batches) {
        ShareStateRecord stored = states.get(key);
        if (stored == null) {
            throw new InvalidRequestException(UNINITIALIZED_WRITE);
        }
        for (StateBatch b : batches) {
            if (b.lastOffset() == Long.MAX_VALUE) {
                // No record has that offset, and the merge takes one past a batch's last offset.
                throw new InvalidRequestException(key.coordinatorKey() + ": a state batch ends at the largest offset");
            }
        }
        ShareState s = stored.state();
        checkLeaderEpoch(key, s, leaderEpoch);
        if (stateEpoch != -1 && s.stateEpoch() > stateEpoch) {
            throw new FencedStateEpochException(key.coordinatorKey() + ": state epoch " + stateEpoch
                    + " is older than the stored " + s.stateEpoch());
        }
        long start = startOffset == -1 ? s.startOffset() : startOffset;
        // The stored epochs stay: only initialize sets the state epoch and only a read records a leader's.
        ShareState merged = new ShareState(s.stateEpoch(), start, s.leaderEpoch(),
                StateBatches.merge(s.batches(), batches, start));
        return CoordinatorResult.of(List.of(new ShareStateRecord(key, merged, deliveryCompleteCount)), null);
    }

    Optional<ShareStateSummary> readSummary(SharePartitionKey key) {
        ShareStateRecord stored = states.get(key);
        return stored == null ? Optional.empty() : Optional.of(stored.summary());
    }

    CoordinatorResult<Void, ShareStateRecord> delete(SharePartitionKey key) {
        if (!states.containsKey(key)) {
            return CoordinatorResult.of(null);
        }
        return CoordinatorResult.of(List.of(ShareStateRecord.tombstone(key)), null);
    }

    /** How many share partitions this shard holds (tests, logs). */
    int size() {
        return states.size();
    }

    private static void checkLeaderEpoch(SharePartitionKey key, ShareState s, int leaderEpoch) {
        if (leaderEpoch != -1 && s.leaderEpoch() > leaderEpoch) {
            throw new FencedLeaderEpochException(key.coordinatorKey() + ": leader epoch " + leaderEpoch
                    + " is older than the stored " + s.leaderEpoch());
        }
    }
}
