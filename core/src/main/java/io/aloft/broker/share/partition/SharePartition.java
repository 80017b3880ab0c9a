package io.aloft.broker.share.partition;

import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.log.BatchRecords;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.TimestampOffset;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.StateBatch;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.FencedStateEpochException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One share partition: a share group's records of one topic partition this broker leads (KIP-932).
 *
 * <h2>State</h2>
 * The in-flight window ({@link InFlightRecords}) from the start offset (SPSO) to the end offset
 * (SPEO): per offset AVAILABLE, ACQUIRED (by a member, under an {@link AcquisitionLock}),
 * ACKNOWLEDGED or ARCHIVED, and its delivery count. Loaded from the {@link ShareStatePersister}
 * at this log's leader epoch; with no state, or a start offset of -1, the start is chosen with
 * {@code share.auto.offset.reset} and persisted. The start moves past the leading run of
 * acknowledged and archived offsets, and up to the log start when retention removed records.
 *
 * <h2>Acquisitions</h2>
 * Run one at a time (chained on {@code acquireTail}), each: pick the first AVAILABLE offset in the
 * window (or the end), read the log there outside the lock, then take what the read holds under
 * the lock ({@link AcquireScan}). Serial acquisitions mean two members never race for a record
 * and no read is wasted on records another acquisition just took. A record that was delivered
 * {@code share.delivery.count.limit} times is archived instead of delivered; a lock that expires
 * makes its records AVAILABLE again (ARCHIVED at the limit).
 *
 * <h2>Durability</h2>
 * Every change of stored state (acknowledgements, releases, archives, start moves, and the count of
 * a redelivery, made durable when the record is acquired so a restart keeps counting towards the
 * limit; a first delivery is not written when acquired, only with the record's next change
 * (acknowledgement, release, expiry), so a restart while it is held may deliver it once more without
 * counting that delivery: an acquisition costs no write) marks its offsets dirty; one write at a time carries the current state of
 * the dirty offsets and the start offset ({@link ShareStatePersister#write}), so writes never
 * overtake one another and a burst of acknowledgements shares one write. An acknowledgement
 * completes once a write that began after it is durable. A failed write leaves its offsets dirty
 * for the next (retried after {@link #RETRY_MS}); a FENCED_LEADER_EPOCH (another leader wrote the
 * state since) or FENCED_STATE_EPOCH (the state was reset, AlterShareGroupOffsets) closes the
 * share partition, whose manager then drops it (the next use loads it afresh, or finds it led
 * elsewhere).
 *
 * <h2>Threads</h2>
 * Thread-safe. {@code lock} guards every field below it; nothing under it blocks or does I/O:
 * log reads and persister calls are issued after it is released, and wake-ups run outside it.
 * Lock expiries run on the timer's thread; reads complete on the log's threads (see
 * {@link PartitionLog}), where the (in-memory) rest of an acquisition continues.
 */
final class SharePartition {
    private static final Logger log = LoggerFactory.getLogger(SharePartition.class);

    /** How long after a failed state write the dirty state is written again. */
    static final long RETRY_MS = 1_000;

    private final SharePartitionKey key;
    private final TopicIdPartition tp;
    private final PartitionLog partitionLog;
    private final ShareStatePersister persister;
    private final ShareGroupSettingsSource settings;
    private final CoordinatorTimer timer;
    private final Consumer<SharePartition> onClosed;
    /** Registered with the log so its close or failure (leadership moved) closes this. */
    private final Runnable logStopped = () -> close(Errors.NOT_LEADER_OR_FOLLOWER, null);

    private final Object lock = new Object();
    private boolean loaded;
    /** Closed because no member was left and everything was durable (see {@link #releaseMember}). */
    private boolean retired;
    /** Members that acquired here and were not released since. */
    private final Set<String> members = new HashSet<>();
    private Errors closedError;
    private String closedMessage;
    private InFlightRecords records;
    private int stateEpoch;
    private CompletableFuture<?> acquireTail;
    /** Completes once the load ended (either way). */
    private CompletableFuture<Void> loading;
    private final ShareWaiters waiters;
    private final StateWrites writes = new StateWrites();

    SharePartition(SharePartitionKey key, TopicIdPartition tp, PartitionLog partitionLog,
            ShareStatePersister persister, ShareGroupSettingsSource settings, CoordinatorTimer timer,
            Consumer<SharePartition> onClosed) {
        this.key = key;
        this.tp = tp;
        this.partitionLog = partitionLog;
        this.persister = persister;
        this.settings = settings;
        this.timer = timer;
        this.onClosed = onClosed;
        this.waiters = new ShareWaiters(partitionLog);
    }

    PartitionLog partitionLog() {
        return partitionLog;
    }

    String groupId() {
        return key.groupId();
    }

    /** Whether this closed only because it was idle (see {@link #releaseMember}): a new one serves the group. */
    boolean isRetired() {
        synchronized (lock) {
            return retired;
        }
    }

    boolean isClosed() {
        synchronized (lock) {
            return closedError != null;
        }
    }

    // ---------------------------------------------------------------- loading

    /** Loads the state; acquisitions and acknowledgements wait for it. Call once. */
    void start() {
        CompletableFuture<Void> load = new CompletableFuture<>();
        synchronized (lock) {
            acquireTail = load;
            loading = load;
        }
        if (!partitionLog.wakeOnData(Long.MAX_VALUE, IsolationLevel.READ_UNCOMMITTED, logStopped)) {
            close(Errors.NOT_LEADER_OR_FOLLOWER, tp + " is no longer led by this broker");
            load.complete(null);
            return;
        }
        persister.read(key, partitionLog.leaderEpoch()).thenCompose(this::install).whenComplete((v, e) -> {
            if (e != null) {
                failed("load", e);
            }
            load.complete(null);
        });
    }

    private CompletableFuture<Void> install(Optional<ShareState> stored) {
        if (stored.isPresent() && stored.get().startOffset() >= 0) {
            ShareState s = stored.get();
            installLoaded(s.stateEpoch(), s.startOffset(), s.batches());
            return CompletableFuture.completedFuture(null);
        }
        int epoch = stored.map(ShareState::stateEpoch).orElse(0);
        ShareGroupSettings s = settings.settings(key.groupId());
        return resetOffset(s).thenCompose(offset -> {
            CompletableFuture<Void> persisted = stored.isPresent()
                    ? persister.write(key, epoch, partitionLog.leaderEpoch(), offset, 0, List.of())
                    : persister.initialize(key, epoch, offset);
            return persisted.thenRun(() -> installLoaded(epoch, offset, List.of()));
        });
    }

    /** Where a share partition without a start offset starts ({@code share.auto.offset.reset}). */
    private CompletableFuture<Long> resetOffset(ShareGroupSettings s) {
        long latest = s.readCommitted() ? partitionLog.lastStableOffset() : partitionLog.highWatermark();
        return switch (s.autoOffsetReset().kind()) {
            case EARLIEST -> CompletableFuture.completedFuture(partitionLog.logStartOffset());
            case LATEST -> CompletableFuture.completedFuture(latest);
            // No record that recent: from the end, as Kafka.
            case BY_DURATION -> partitionLog.offsetForTimestamp(timer.nowMs() - s.autoOffsetReset().durationMs())
                    .thenApply(found -> found.map(TimestampOffset::offset).orElse(latest));
        };
    }

    private void installLoaded(int epoch, long startOffset, List<StateBatch> batches) {
        synchronized (lock) {
            if (closedError != null) {
                return;
            }
            stateEpoch = epoch;
            records = new InFlightRecords(startOffset);
            records.load(batches);
            loaded = true;
            moveToLogStartLocked();
            log.debug("Loaded share partition {} of group {}: offsets {}..{} in flight", tp, key.groupId(),
                    records.start(), records.end());
        }
        flush();
    }

    /** Forgets offsets the log no longer has (retention, DeleteRecords): the start moves to the log start. */
    private void moveToLogStartLocked() {
        long logStart = partitionLog.logStartOffset();
        if (records.start() < logStart) {
            for (AcquisitionLock l : records.dropBelow(logStart)) {
                l.free();
            }
            records.advanceStart();
            writes.startMoved();
        }
    }

    // ---------------------------------------------------------------- acquiring

    /** See {@link SharePartitions#acquire}; runs after the acquisitions before it. */
    CompletableFuture<Acquired> acquire(String memberId, int maxBytes, int maxRecords, boolean recordLimit) {
        CompletableFuture<Acquired> result = new CompletableFuture<>();
        CompletableFuture<?> previous;
        synchronized (lock) {
            previous = acquireTail;
            acquireTail = result;
        }
        previous.handle((v, e) -> null).thenCompose(v -> acquireNow(memberId, maxBytes, maxRecords, recordLimit))
                .whenComplete((acquired, e) -> result.complete(e != null
                        ? Acquired.failed(ShareErrors.toKafka(e), PartitionErrors.message(e)) : acquired));
        return result;
    }

    private CompletableFuture<Acquired> acquireNow(String memberId, int maxBytes, int maxRecords,
            boolean recordLimit) {
        ShareGroupSettings s = settings.settings(key.groupId());
        Acquired none = new Acquired(Errors.NONE, null, BatchRecords.EMPTY, List.of(), s.recordLockDurationMs());
        IsolationLevel isolation = s.readCommitted() ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED;
        long readFrom;
        synchronized (lock) {
            if (closedError != null) {
                return CompletableFuture.completedFuture(Acquired.failed(closedError, closedMessage));
            }
            if (maxRecords <= 0) {
                return CompletableFuture.completedFuture(none);
            }
            moveToLogStartLocked();
            readFrom = nextReadLocked(s);
            if (readFrom >= logEnd(s)) {
                readFrom = -1;
            }
        }
        flush();
        if (readFrom < 0) {
            return CompletableFuture.completedFuture(none);
        }
        long from = readFrom;
        return partitionLog.read(from, maxBytes, true, isolation)
                .thenApply(read -> take(memberId, read, from, maxRecords, recordLimit, s));
    }

    /**
     * The offset the next acquisition reads from: the first AVAILABLE one in the window, else the
     * window's end if the window has room; -1 when the window is full of records held or done.
     */
    private long nextReadLocked(ShareGroupSettings s) {
        long firstAvailable = records.firstAvailable();
        if (firstAvailable >= 0) {
            return firstAvailable;
        }
        return records.size() < s.partitionMaxRecordLocks() ? records.end() : -1;
    }

    /** Where the records a member may get end: the high watermark, or for read_committed the last stable offset. */
    private long logEnd(ShareGroupSettings s) {
        return s.readCommitted() ? partitionLog.lastStableOffset() : partitionLog.highWatermark();
    }

    private Acquired take(String memberId, LogReadResult read, long readFrom, int maxRecords, boolean recordLimit,
            ShareGroupSettings s) {
        AcquireScan scan;
        BatchRecords batches;
        synchronized (lock) {
            if (closedError != null) {
                return Acquired.failed(closedError, closedMessage);
            }
            members.add(memberId);
            AcquisitionLock acquisition = new AcquisitionLock(memberId, timer.nowMs() + s.recordLockDurationMs());
            scan = new AcquireScan(records, this::dirtyLocked, s.deliveryCountLimit(), s.partitionMaxRecordLocks());
            batches = scan.scan(read, readFrom, acquisition, maxRecords, recordLimit);
            if (scan.acquired > 0) {
                acquisition.timer = timer.schedule(s.recordLockDurationMs(), () -> expire(acquisition));
            }
            if (records.advanceStart()) {
                writes.startMoved();
            }
        }
        flush();
        return new Acquired(Errors.NONE, null, scan.acquired == 0 ? BatchRecords.EMPTY : batches, scan.ranges,
                s.recordLockDurationMs());
    }

    /** A lock's timer: what it still holds becomes AVAILABLE again (ARCHIVED at the delivery limit). */
    private void expire(AcquisitionLock expired) {
        int limit = settings.settings(key.groupId()).deliveryCountLimit();
        boolean released = false;
        synchronized (lock) {
            if (closedError != null) {
                return;
            }
            expired.timer = null;
            for (long o = Math.max(expired.first, records.start()); o <= expired.last && o < records.end(); o++) {
                if (records.lock(o) == expired && records.state(o) == InFlightRecords.ACQUIRED) {
                    releaseLocked(o, limit);
                    released = true;
                }
            }
            expired.held = 0;
            if (records.advanceStart()) {
                writes.startMoved();
            }
        }
        if (released) {
            flush();
            wakeAll();
        }
    }

    /** An acquired offset back to AVAILABLE, or ARCHIVED once it was delivered {@code limit} times. */
    private void releaseLocked(long offset, int limit) {
        short count = records.count(offset);
        records.set(offset, count >= limit ? InFlightRecords.ARCHIVED : InFlightRecords.AVAILABLE, count, null);
        dirtyLocked(offset);
    }

    // ---------------------------------------------------------------- acknowledging

    /** See {@link SharePartitions#acknowledge}; applied once the state is loaded. */
    CompletableFuture<AcknowledgeResult> acknowledge(String memberId, List<Acknowledgement> acks) {
        CompletableFuture<?> load;
        synchronized (lock) {
            load = loaded || closedError != null ? null : loading;
        }
        if (load != null) {
            return load.handle((v, e) -> null).thenCompose(v -> acknowledge(memberId, acks));
        }
        ShareGroupSettings s = settings.settings(key.groupId());
        CompletableFuture<Void> durable = null;
        boolean released = false;
        synchronized (lock) {
            if (closedError != null) {
                return CompletableFuture.completedFuture(new AcknowledgeResult(closedError, closedMessage));
            }
            AcknowledgeResult invalid = AcknowledgementCheck.check(records, memberId, acks);
            if (invalid != null) {
                return CompletableFuture.completedFuture(invalid);
            }
            AcquisitionLock renewed = null;
            for (Acknowledgement ack : acks) {
                for (long o = Math.max(ack.firstOffset(), records.start()); o <= ack.lastOffset(); o++) {
                    byte type = ack.typeOf(o);
                    if (records.state(o) != InFlightRecords.ACQUIRED) {
                        continue; // a GAP over an offset archived already
                    }
                    AcquisitionLock held = records.lock(o);
                    if (type == Acknowledgement.RENEW) {
                        if (renewed == null) {
                            renewed = new AcquisitionLock(memberId, timer.nowMs() + s.recordLockDurationMs());
                        }
                        held.free();
                        records.set(o, InFlightRecords.ACQUIRED, records.count(o), renewed);
                        renewed.hold(o);
                        continue;
                    }
                    held.free();
                    if (type == Acknowledgement.ACCEPT) {
                        records.set(o, InFlightRecords.ACKNOWLEDGED, records.count(o), null);
                        dirtyLocked(o);
                    } else if (type == Acknowledgement.RELEASE) {
                        releaseLocked(o, s.deliveryCountLimit());
                        released = true;
                    } else {
                        records.set(o, InFlightRecords.ARCHIVED, records.count(o), null); // REJECT, GAP
                        dirtyLocked(o);
                    }
                    durable = durable != null ? durable : newWaitLocked();
                }
            }
            if (renewed != null) {
                AcquisitionLock l = renewed;
                l.timer = timer.schedule(s.recordLockDurationMs(), () -> expire(l));
            }
            if (records.advanceStart()) {
                writes.startMoved();
                released = true; // room in the window for new records
            }
        }
        flush();
        if (released) {
            wakeAll();
        }
        if (durable == null) {
            return CompletableFuture.completedFuture(AcknowledgeResult.OK); // only renewals: nothing stored changed
        }
        return durable.handle((v, e) -> e == null ? AcknowledgeResult.OK
                : new AcknowledgeResult(ShareErrors.toKafka(e), PartitionErrors.message(e)));
    }

    /**
     * See {@link SharePartitions#releaseMember}: what the member holds becomes AVAILABLE (ARCHIVED at
     * the limit). When the last member that acquired here is gone, nothing is acquired and every
     * change is durable, this share partition retires (closes; the next use loads the state
     * afresh): a group without members may have had its state reset or deleted meanwhile
     * (AlterShareGroupOffsets, DeleteShareGroupOffsets need an empty group), which the state kept
     * in memory here would not see.
     */
    CompletableFuture<Void> releaseMember(String memberId) {
        int limit = settings.settings(key.groupId()).deliveryCountLimit();
        CompletableFuture<Void> durable = null;
        boolean retire;
        synchronized (lock) {
            if (closedError != null || !loaded) {
                return CompletableFuture.completedFuture(null);
            }
            members.remove(memberId);
            boolean held = false;
            for (long o = records.start(); o < records.end(); o++) {
                AcquisitionLock lockOf = records.lock(o);
                if (records.state(o) != InFlightRecords.ACQUIRED) {
                    continue;
                }
                if (lockOf.memberId.equals(memberId)) {
                    lockOf.free();
                    releaseLocked(o, limit);
                    durable = durable != null ? durable : newWaitLocked();
                } else {
                    held = true;
                }
            }
            if (durable != null && records.advanceStart()) {
                writes.startMoved();
            }
            retire = durable == null && !held && members.isEmpty() && writes.idle() && acquireTail.isDone();
            retired = retire;
        }
        if (retire) {
            close(Errors.NOT_LEADER_OR_FOLLOWER, "share partition " + tp + " of group " + key.groupId()
                    + " was unloaded (no members left)");
            return CompletableFuture.completedFuture(null);
        }
        if (durable == null) {
            return CompletableFuture.completedFuture(null);
        }
        flush();
        wakeAll();
        // Retire once the release is durable, if no one came meanwhile.
        return durable.handle((v, e) -> null).thenCompose(v -> releaseMember(memberId));
    }

    // ---------------------------------------------------------------- waiting

    /** See {@link SharePartitions#wakeOnAvailable}. */
    boolean wakeOnAvailable(Runnable wake) {
        ShareGroupSettings s = settings.settings(key.groupId());
        IsolationLevel isolation = s.readCommitted() ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED;
        synchronized (lock) {
            if (closedError != null || !loaded) {
                return false;
            }
            if (waiters.contains(wake)) {
                return true; // registered already: it runs once, on the first change
            }
            long next = nextReadLocked(s);
            Runnable onData = null;
            if (next >= 0) {
                // Something to read once the log has it (new records, or for read_committed a
                // transaction decided). The log's lock is taken inside this one only: its
                // wake-ups run outside it.
                Runnable fromLog = () -> waiters.wake(wake);
                if (!partitionLog.wakeOnData(next, isolation, fromLog)) {
                    return false;
                }
                onData = fromLog;
            }
            waiters.add(wake, onData);
            return true;
        }
    }

    void cancelWake(Runnable wake) {
        waiters.remove(wake);
    }

    private void wakeAll() {
        waiters.wakeAll();
    }

    // ---------------------------------------------------------------- writing state

    private void dirtyLocked(long offset) {
        writes.dirty(offset);
    }

    /** A future completing once a write taken after this call is durable (call {@link #flush} after the lock). */
    private CompletableFuture<Void> newWaitLocked() {
        return writes.newWait();
    }

    /** Writes the dirty state unless a write is in flight (its completion writes what became dirty since). */
    private void flush() {
        StateWrites.Write w;
        synchronized (lock) {
            if (closedError != null || !loaded || (w = writes.take(records)) == null) {
                return;
            }
        }
        persister.write(key, stateEpoch, partitionLog.leaderEpoch(), w.startOffset(), w.deliveryCompleteCount(),
                w.batches()).whenComplete((v, e) -> written(w, e));
    }

    private void written(StateWrites.Write w, Throwable error) {
        synchronized (lock) {
            writes.done(w, error != null);
        }
        w.waiting().forEach(f -> {
            if (error == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(error);
            }
        });
        if (error == null) {
            flush();
        } else if (!failed("write state", error)) {
            log.warn("Writing the state of share partition {} of group {} failed; retrying", tp, key.groupId(),
                    PartitionErrors.unwrap(error));
            timer.schedule(RETRY_MS, this::flush);
        }
    }

    /** Closes this on a fencing or load failure; whether it closed. */
    private boolean failed(String what, Throwable error) {
        Throwable e = PartitionErrors.unwrap(error);
        if (e instanceof FencedLeaderEpochException) {
            close(Errors.NOT_LEADER_OR_FOLLOWER, "share partition " + tp + " of group " + key.groupId()
                    + " has a newer leader: " + e.getMessage());
        } else if (e instanceof FencedStateEpochException) {
            close(Errors.FENCED_STATE_EPOCH, e.getMessage());
        } else if (what.equals("load")) {
            log.warn("Loading share partition {} of group {} failed", tp, key.groupId(), e);
            close(ShareErrors.toKafka(e), "loading the share partition failed: " + e.getMessage());
        } else {
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- closing

    /**
     * Stops this share partition: its locks end (the acquisitions die with it: the durable state
     * has them AVAILABLE), waiters are woken, calls answer {@code error}, and the manager drops it.
     */
    void close(Errors error, String message) {
        List<CompletableFuture<Void>> unwritten;
        synchronized (lock) {
            if (closedError != null) {
                return;
            }
            closedError = error;
            closedMessage = message != null ? message : "share partition " + tp + " of group " + key.groupId()
                    + " is not led by this broker";
            if (records != null) {
                for (long o = records.start(); o < records.end(); o++) {
                    AcquisitionLock l = records.lock(o);
                    if (l != null) {
                        l.cancel();
                    }
                }
            }
            unwritten = writes.drainWaiting();
        }
        partitionLog.cancelWake(logStopped);
        log.debug("Closed share partition {} of group {}: {}", tp, key.groupId(), error);
        unwritten.forEach(f -> f.completeExceptionally(error.exception(closedMessage)));
        waiters.wakeAll();
        onClosed.accept(this);
    }

    @Override
    public String toString() {
        return "SharePartition(" + key.groupId() + ", " + tp + ")";
    }
}
