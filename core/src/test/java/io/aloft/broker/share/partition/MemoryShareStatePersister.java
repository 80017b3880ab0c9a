package io.aloft.broker.share.partition;

import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateSummary;
import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.FencedStateEpochException;

/**
 * A {@link ShareStatePersister} in memory with the share coordinator's rules (Kafka's): a read
 * records the leader epoch and refuses an older one (FencedLeaderEpochException); a write refuses
 * another state epoch (FencedStateEpochException) or an older leader epoch, moves the start offset
 * (dropping states below it) and overwrites the states of the offsets its batches cover. For tests
 * of the share partitions and anything built on them (public). Writes can be held back
 * ({@link #holdWrites}) to see what waits for durability. Thread-safe.
 */
public final class MemoryShareStatePersister implements ShareStatePersister {

    private static final class Stored {
        int stateEpoch;
        long startOffset;
        int leaderEpoch = -1;
        int deliveryCompleteCount = -1;
        /** offset -> {state, count} */
        final TreeMap<Long, short[]> offsets = new TreeMap<>();
    }

    private final Map<SharePartitionKey, Stored> states = new HashMap<>();
    private final List<Runnable> heldWrites = new ArrayList<>();
    private boolean holding;
    private int writes;
    private RuntimeException failNext;

    @Override
    public synchronized CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        Stored s = new Stored();
        s.stateEpoch = stateEpoch;
        s.startOffset = startOffset;
        states.put(key, s);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch) {
        Stored s = states.get(key);
        if (s == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (leaderEpoch < s.leaderEpoch) {
            return CompletableFuture.failedFuture(new FencedLeaderEpochException("leader epoch " + leaderEpoch
                    + " is older than " + s.leaderEpoch));
        }
        s.leaderEpoch = leaderEpoch;
        return CompletableFuture.completedFuture(Optional.of(snapshot(s)));
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<StateBatch> batches) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable apply = () -> {
            try {
                applyWrite(key, stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount, batches);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        };
        synchronized (this) {
            if (holding) {
                heldWrites.add(apply);
                return done;
            }
        }
        apply.run();
        return done;
    }

    private synchronized void applyWrite(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<StateBatch> batches) {
        if (failNext != null) {
            RuntimeException e = failNext;
            failNext = null;
            throw e;
        }
        Stored s = states.computeIfAbsent(key, k -> new Stored());
        if (stateEpoch != s.stateEpoch) {
            throw new FencedStateEpochException("state epoch " + stateEpoch + " is not " + s.stateEpoch);
        }
        if (leaderEpoch < s.leaderEpoch) {
            throw new FencedLeaderEpochException("leader epoch " + leaderEpoch + " is older than " + s.leaderEpoch);
        }
        writes++;
        s.leaderEpoch = leaderEpoch;
        s.deliveryCompleteCount = deliveryCompleteCount;
        for (StateBatch b : batches) {
            for (long o = b.firstOffset(); o <= b.lastOffset(); o++) {
                s.offsets.put(o, new short[] {b.deliveryState(), b.deliveryCount()});
            }
        }
        if (startOffset >= 0) {
            s.startOffset = startOffset;
        }
        s.offsets.headMap(s.startOffset).clear();
    }

    @Override
    public synchronized CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key) {
        Stored s = states.get(key);
        return CompletableFuture.completedFuture(s == null ? Optional.empty() : Optional.of(
                new ShareStateSummary(s.stateEpoch, s.startOffset, s.leaderEpoch, s.deliveryCompleteCount)));
    }

    @Override
    public synchronized CompletableFuture<Void> delete(SharePartitionKey key) {
        states.remove(key);
        return CompletableFuture.completedFuture(null);
    }

    /** The stored state as a read would answer it (without recording an epoch); empty if none. */
    public synchronized Optional<ShareState> stored(SharePartitionKey key) {
        Stored s = states.get(key);
        return s == null ? Optional.empty() : Optional.of(snapshot(s));
    }

    /** Fails the next write with {@code error}, applying nothing (a coordinator that could not write). */
    public synchronized void failNextWrite(RuntimeException error) {
        failNext = error;
    }

    /** How many writes were applied. */
    public synchronized int writes() {
        return writes;
    }

    /** Holds writes back (not durable yet) until {@link #releaseWrites}. */
    public synchronized void holdWrites() {
        holding = true;
    }

    /** Applies the writes held back, in order, and stops holding. */
    public void releaseWrites() {
        List<Runnable> held;
        synchronized (this) {
            holding = false;
            held = new ArrayList<>(heldWrites);
            heldWrites.clear();
        }
        held.forEach(Runnable::run);
    }

    private static ShareState snapshot(Stored s) {
        List<StateBatch> out = new ArrayList<>();
        long first = -1;
        long last = -1;
        short[] run = null;
        for (Map.Entry<Long, short[]> e : s.offsets.entrySet()) {
            short[] v = e.getValue();
            if (run != null && (e.getKey() != last + 1 || v[0] != run[0] || v[1] != run[1])) {
                out.add(new StateBatch(first, last, (byte) run[0], run[1]));
                run = null;
            }
            if (run == null) {
                first = e.getKey();
                run = v;
            }
            last = e.getKey();
        }
        if (run != null) {
            out.add(new StateBatch(first, last, (byte) run[0], run[1]));
        }
        return new ShareState(s.stateEpoch, s.startOffset, s.leaderEpoch, out);
    }
}
