package io.aloft.broker.partition;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.controller.model.BrokerState;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The waits of partition opens for the broker that still holds a partition moved here (see
 * {@link PartitionManager}): an open may start only once no other live broker holds any of the
 * partition's streams open, because the holder uploads what only its WAL has when it closes them.
 *
 * <p>A drain moves every partition of a broker at once, so a thousand opens may wait together.
 * Polling each partition's streams every 50 ms sent the controller tens of thousands of reads a
 * second, which starved the closes and commits of the very broker being waited for. Instead:
 * <ul>
 *   <li>one description of the partition's streams learns their epoch and holder;
 *   <li>while the holder is live, the description is repeated with a backoff from
 *       {@link #POLL_MS} doubling up to {@link #ACTIVE_HOLDER_MAX_POLL_MS} for an active holder
 *       (a reassignment: it closes the partition within about a second) or
 *       {@link #DRAINING_HOLDER_MAX_POLL_MS} for a draining one, which leaves the cluster as soon
 *       as it has closed everything it held, and the change feed brings that here;
 *   <li>at most {@link #MAX_DESCRIBES_IN_FLIGHT} opens ask the controller at once, the first
 *       description included (the others are described in turn);
 *   <li>once this broker's metadata shows the holder gone, or fenced with its WAL recovered by
 *       another broker (WALs in object storage: see {@code WalFailover}; with block WALs a fenced
 *       holder's WAL cannot be reached, and is not waited for), the wait ends without asking
 *       again, with an epoch above the one described. (Were the streams opened by another broker
 *       meanwhile, the controller would refuse this open's epoch, and the client retries.)
 * </ul>
 *
 * <p>Thread-safe. Waits are checked by one task on the broker's scheduler, every {@link #POLL_MS}
 * while any wait is pending; the controller's answers are handled on that scheduler too.
 */
final class PartitionHandoffs {
    /** How often pending waits are checked, and the first backoff of a wait's controller queries. */
    static final long POLL_MS = 50;
    static final long ACTIVE_HOLDER_MAX_POLL_MS = 200;
    static final long DRAINING_HOLDER_MAX_POLL_MS = 1_000;
    /** Waits describing their streams at once (each wait's description is one query per stream). */
    static final int MAX_DESCRIBES_IN_FLIGHT = 32;

    private final int brokerId;
    private final StreamMetadata streams;
    /** A broker's state in this broker's metadata, or null when it is not registered. */
    private final IntFunction<BrokerState> brokerState;
    /** Whether what a (fenced) broker's WAL held is in object storage now; see {@link #live}. */
    private final IntPredicate walRecovered;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier nanoClock;

    private final Object lock = new Object();
    /** Waits between descriptions; guarded by lock. */
    private final List<Wait> waiting = new ArrayList<>();
    /** Waits whose description is in flight; guarded by lock. */
    private int describing;
    /** The periodic check, while anything waits; guarded by lock. */
    private ScheduledFuture<?> ticking;

    /** One open waiting for a holder; its mutable fields are guarded by the lock. */
    private static final class Wait {
        final TopicPartition tp;
        final List<Long> streamIds;
        final long deadlineNanos;
        final CompletableFuture<Long> result = new CompletableFuture<>();
        long epoch;
        int holder;
        long nextDescribeNanos;
        long backoffMs = POLL_MS;

        Wait(TopicPartition tp, List<Long> streamIds, long deadlineNanos) {
            this.tp = tp;
            this.streamIds = streamIds;
            this.deadlineNanos = deadlineNanos;
        }
    }

    PartitionHandoffs(int brokerId, StreamMetadata streams, IntFunction<BrokerState> brokerState,
            ScheduledExecutorService scheduler, LongSupplier nanoClock) {
        this(brokerId, streams, brokerState, id -> true, scheduler, nanoClock);
    }

    PartitionHandoffs(int brokerId, StreamMetadata streams, IntFunction<BrokerState> brokerState,
            IntPredicate walRecovered, ScheduledExecutorService scheduler, LongSupplier nanoClock) {
        this.brokerId = brokerId;
        this.streams = streams;
        this.brokerState = brokerState;
        this.walRecovered = walRecovered;
        this.scheduler = scheduler;
        this.nanoClock = nanoClock;
    }

    /**
     * One above the highest current epoch of the streams, once no other live broker holds any of
     * them open; past {@code deadlineNanos} (of the nano clock) it fails with the retriable
     * NOT_LEADER_OR_FOLLOWER. A holder that is fenced or no longer registered is not waited for:
     * its WAL is beyond reach here (recovering it is the failover work).
     */
    CompletableFuture<Long> takeOver(TopicPartition tp, List<Long> streamIds, long deadlineNanos) {
        Wait w = new Wait(tp, streamIds, deadlineNanos);
        synchronized (lock) {
            if (describing >= MAX_DESCRIBES_IN_FLIGHT) {
                // A burst (a drain moved many partitions here): described in turn by the ticks.
                w.holder = -1;
                w.nextDescribeNanos = nanoClock.getAsLong();
                waiting.add(w);
                startTicking();
                return w.result;
            }
            describing++;
        }
        describe(w); // at once: most opens find no holder, and must not wait for a tick
        return w.result;
    }

    /** Starts the periodic check unless it runs. Called under the lock. */
    private void startTicking() {
        if (ticking == null) {
            ticking = scheduler.scheduleWithFixedDelay(this::tick, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Waits for a holder (tests): between descriptions, or describing again. */
    int pending() {
        synchronized (lock) {
            return waiting.size() + describing;
        }
    }

    /** Asks the controller about the wait's streams; the caller counted it in {@link #describing}. */
    private void describe(Wait w) {
        List<CompletableFuture<StreamInfo>> infos = new ArrayList<>();
        for (long id : w.streamIds) {
            infos.add(streams.describeStream(id));
        }
        CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new))
                .whenCompleteAsync((v, error) -> described(w, infos, error), scheduler)
                .exceptionally(e -> { // the scheduler stopped (the broker is closing): the open fails
                    w.result.completeExceptionally(e);
                    return null;
                });
    }

    private void described(Wait w, List<CompletableFuture<StreamInfo>> infos, Throwable error) {
        long max = 0;
        int holder = -1;
        if (error == null) {
            for (CompletableFuture<StreamInfo> f : infos) {
                StreamInfo i = f.join();
                max = Math.max(max, i.epoch());
                if (i.state() == StreamInfo.State.OPEN && i.ownerNodeId() != brokerId && live(i.ownerNodeId())) {
                    holder = i.ownerNodeId();
                }
            }
        }
        boolean stillWaiting = false;
        synchronized (lock) {
            describing--;
            if (error == null && holder >= 0 && nanoClock.getAsLong() <= w.deadlineNanos) {
                w.epoch = max;
                w.holder = holder;
                w.nextDescribeNanos = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(w.backoffMs);
                BrokerState holderState = brokerState.apply(holder);
                // A draining holder leaves once closed; a fenced one is waited for until its WAL is recovered.
                long cap = holderState == BrokerState.DRAINING || holderState == BrokerState.FENCED
                        ? DRAINING_HOLDER_MAX_POLL_MS
                        : ACTIVE_HOLDER_MAX_POLL_MS;
                w.backoffMs = Math.min(w.backoffMs * 2, cap);
                waiting.add(w);
                stillWaiting = true;
                startTicking();
            }
        }
        if (stillWaiting) {
            return;
        }
        if (error != null) {
            w.result.completeExceptionally(error);
        } else if (holder < 0) {
            w.result.complete(max + 1);
        } else {
            w.result.completeExceptionally(stillHeld(w.tp, holder));
        }
    }

    /** The periodic check: ends waits whose holder is gone or whose time is up, and describes those due. */
    private void tick() {
        List<Wait> released = new ArrayList<>();
        List<Wait> expired = new ArrayList<>();
        List<Wait> due = new ArrayList<>();
        long now = nanoClock.getAsLong();
        synchronized (lock) {
            for (java.util.Iterator<Wait> it = waiting.iterator(); it.hasNext(); ) {
                Wait w = it.next();
                if (w.holder >= 0 && !live(w.holder)) {
                    it.remove();
                    released.add(w);
                } else if (now > w.deadlineNanos) {
                    it.remove();
                    expired.add(w);
                } else if (now >= w.nextDescribeNanos && describing < MAX_DESCRIBES_IN_FLIGHT) {
                    it.remove();
                    describing++;
                    due.add(w);
                }
            }
            if (waiting.isEmpty() && describing == 0 && ticking != null) {
                ticking.cancel(false);
                ticking = null;
            }
        }
        released.forEach(w -> w.result.complete(w.epoch + 1));
        expired.forEach(w -> w.result.completeExceptionally(stillHeld(w.tp, w.holder)));
        due.forEach(this::describe);
    }

    private static PartitionLogException stillHeld(TopicPartition tp, int holder) {
        return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, holder < 0
                ? tp + " waited too long for the controller to describe its streams"
                : tp + " is still open on broker " + holder + ", which is handing it over");
    }

    /**
     * Whether broker {@code id} still stands between this open and the partition's data: registered
     * and not fenced (it may still write to what it holds open, and closes it itself), or fenced
     * with its WAL not recovered yet by another broker.
     */
    private boolean live(int id) {
        BrokerState state = brokerState.apply(id);
        return state != null && state != BrokerState.FENCED || !walRecovered.test(id);
    }
}
