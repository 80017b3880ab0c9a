package io.aloft.broker.partition;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.log.VerificationGuard;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.store.StreamStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition logs this broker serves: opened on first use when the metadata says this broker
 * leads the partition, closed as soon as the metadata says it no longer does (moved, topic
 * deleted, or a new leader epoch; a pass every {@link #RELEASE_INTERVAL_MS} catches anything
 * missed), and kept within retention by a periodic pass.
 *
 * <p>Opening takes the partition's streams with an epoch above their current one, which fences
 * whichever broker had them before: no two brokers ever append to one partition. A partition
 * moved here from a live broker is opened once that broker has closed it, so what it acknowledged
 * is in object storage first (see {@link PartitionHandoffs}).
 *
 * <p>Thread-safe. {@code this} guards the open logs; appends are queued per partition by
 * {@link PartitionWriters} (each partition's own monitor) and submitted on the thread that
 * appended or the one that finished opening the log. Appends complete on the partition's
 * acknowledgement thread (see {@link PartitionLog}).
 */
public final class PartitionManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionManager.class);

    private final int brokerId;
    private final MetadataCache cache;
    private final StreamStore store;
    private final Supplier<LogConfig> brokerDefaults;
    private final LongSupplier clock;
    /**
     * How often open logs are compared with the metadata, to close those led elsewhere now: their
     * data goes up to object storage and their memory is freed soon after a move. (The new owner
     * never waits for it: opening with a higher stream epoch fences this broker's appends.)
     */
    static final long RELEASE_INTERVAL_MS = 1_000;
    private final java.util.concurrent.atomic.AtomicBoolean releaseQueued = new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * How long an open waits for the previous holder to close the partition before the request
     * fails with NOT_LEADER_OR_FOLLOWER (clients retry; the next request waits again).
     */
    static final long HANDOFF_TIMEOUT_MS = 10_000;

    private final PartitionHandoffs handoffs;
    private final Map<TopicPartition, Entry> logs = new HashMap<>();
    /** One writer per partition with appends queued (see {@link #append}). */
    private final PartitionWriters writers;
    private boolean closed;
    /** Told each successful open's latency in nanoseconds (see {@link #recordOpenLatencyTo}). */
    private volatile java.util.function.LongConsumer openLatency = nanos -> { };
    private final java.util.concurrent.atomic.LongAdder openFailures = new java.util.concurrent.atomic.LongAdder();
    /** Whether appends may be acknowledged now (see {@link #acknowledgeOnlyWhile}). */
    private volatile java.util.function.BooleanSupplier acknowledgeable = () -> true;

    /** One served partition: the leader epoch it was opened for, and the log (being) opened. */
    /** Logs released and not closed yet, by partition (see {@link #leaderLog}). Guarded by {@code this}. */
    private final Map<TopicPartition, CompletableFuture<Void>> closing = new HashMap<>();

    private record Entry(int leaderEpoch, CompletableFuture<PartitionLog> log) {
    }

    public PartitionManager(int brokerId, MetadataCache cache, StreamStore store, StreamMetadata streams,
            Supplier<LogConfig> brokerDefaults, LongSupplier clock, ScheduledExecutorService scheduler, long maintenanceMs) {
        this(brokerId, cache, store, streams, id -> true, brokerDefaults, clock, scheduler, maintenanceMs);
    }

    /**
     * @param walRecovered whether what a fenced broker's WAL held is in object storage now (WALs in
     *     object storage: another broker recovers it); partitions it held open wait for that
     */
    public PartitionManager(int brokerId, MetadataCache cache, StreamStore store, StreamMetadata streams,
            java.util.function.IntPredicate walRecovered, Supplier<LogConfig> brokerDefaults, LongSupplier clock,
            ScheduledExecutorService scheduler, long maintenanceMs) {
        this.brokerId = brokerId;
        this.cache = cache;
        this.store = store;
        this.brokerDefaults = brokerDefaults;
        this.clock = clock;
        this.writers = new PartitionWriters(this::leaderLog, topic -> {
            TopicInfo info = cache.view().topic(topic);
            return info == null ? null : info.topicId();
        }, scheduler);
        this.handoffs = new PartitionHandoffs(brokerId, streams, id -> {
            BrokerInfo b = cache.view().brokers().get(id);
            return b == null ? null : b.state();
        }, walRecovered, scheduler, System::nanoTime);
        scheduler.scheduleWithFixedDelay(this::maintain, maintenanceMs, maintenanceMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::releaseMoved, RELEASE_INTERVAL_MS, RELEASE_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
        // A move is usually seen here first through the change feed: release at once instead of at
        // the next poll (up to a second later, all of it added to the move). One pass for a burst.
        cache.onTopicsChanged(() -> {
            if (releaseQueued.compareAndSet(false, true)) {
                try {
                    scheduler.execute(() -> {
                        releaseQueued.set(false);
                        releaseMoved();
                    });
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    releaseQueued.set(false); // shutting down: the close releases everything
                }
            }
        });
    }

    /**
     * Appends complete only while {@code lease} holds (the broker's session with the controller,
     * see {@code BrokerLifecycle#leaseValid}); otherwise they fail with NOT_LEADER_OR_FOLLOWER
     * although appended: a broker paused past its session may have been fenced and its partitions
     * opened elsewhere, where what it appends now would never be seen. The client retries; an
     * idempotent producer's retry is recognised as a duplicate if it comes back here.
     */
    public void acknowledgeOnlyWhile(java.util.function.BooleanSupplier lease) {
        this.acknowledgeable = lease;
    }

    /**
     * Sends each partition open's latency, in nanoseconds, to {@code recorder}: from the request
     * that found the partition not open here (a move to this broker, a new leader epoch, a start)
     * until its log is ready, waits for the previous owner's handoff included. Called on whichever
     * thread completes the open; must be quick. Replaces any earlier one.
     */
    public void recordOpenLatencyTo(java.util.function.LongConsumer recorder) {
        this.openLatency = recorder;
    }

    /** Partition opens that failed (the next request tries again). */
    public long openFailures() {
        return openFailures.sum();
    }

    /** The broker-wide topic defaults in force now (they can change at run time). */
    public LogConfig brokerDefaults() {
        return brokerDefaults.get();
    }

    /**
     * The log of a partition this broker leads; fails with {@link PartitionLogException} carrying
     * UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER otherwise.
     */
    public CompletableFuture<PartitionLog> leaderLog(TopicPartition tp) {
        TopicInfo topic = cache.view().topic(tp.topic());
        if (topic == null || tp.partition() < 0 || tp.partition() >= topic.partitions().size()) {
            return CompletableFuture.failedFuture(new PartitionLogException(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    tp + " does not exist"));
        }
        PartitionInfo p = topic.partitions().get(tp.partition());
        if (p.brokerId() != brokerId) {
            return CompletableFuture.failedFuture(new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER,
                    tp + " is served by broker " + p.brokerId() + ", not " + brokerId));
        }
        CompletableFuture<PartitionLog> stale = null;
        CompletableFuture<Void> ownClose;
        CompletableFuture<PartitionLog> opening;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER,
                        "broker shutting down"));
            }
            Entry e = logs.get(tp);
            if (e != null && e.leaderEpoch() == p.leaderEpoch() && !e.log().isCompletedExceptionally()) {
                return e.log();
            }
            if (e != null) {
                stale = e.log();
            }
            opening = new CompletableFuture<>();
            logs.put(tp, new Entry(p.leaderEpoch(), opening));
            ownClose = closing.get(tp);
        }
        // This broker's own earlier log of the partition, released and still closing (uploading what
        // only its WAL holds), must finish first: the handoff wait looks only at other brokers, and
        // opening at a higher stream epoch now would fence that upload and lose those records.
        CompletableFuture<Void> previousClosed = stale != null ? closeQuietly(stale)
                : ownClose != null ? ownClose : CompletableFuture.completedFuture(null);
        LogConfig config = LogConfig.fromTopicOverrides(topic.configs(), brokerDefaults());
        long started = System.nanoTime();
        long handoffDeadline = started + TimeUnit.MILLISECONDS.toNanos(HANDOFF_TIMEOUT_MS);
        previousClosed.thenCompose(v -> handoffs.takeOver(tp, p.streamIds(), handoffDeadline))
                .thenCompose(epoch -> PartitionLog.open(tp, p.streamIds(), store, epoch, p.leaderEpoch(), config, clock))
                .whenComplete((pl, error) -> {
                    if (error != null) {
                        log.warn("Could not open {}", tp, error);
                        synchronized (this) {
                            logs.remove(tp, new Entry(p.leaderEpoch(), opening));
                        }
                        openFailures.increment();
                        opening.completeExceptionally(openFailure(tp, error));
                    } else {
                        openLatency.accept(System.nanoTime() - started);
                        opening.complete(pl);
                    }
                });
        return opening;
    }

    /**
     * A failed open as the error clients get: fenced by a newer owner, NOT_LEADER_OR_FOLLOWER (they
     * look the leader up again); any other failure (object storage, the controller) the retriable
     * KAFKA_STORAGE_ERROR, since the next attempt opens the log afresh.
     */
    private static PartitionLogException openFailure(TopicPartition tp, Throwable error) {
        Throwable cause = error;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof PartitionLogException ple) {
            return ple;
        }
        if (cause instanceof io.aloft.stream.StreamFencedException) {
            return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + " was taken over by a newer owner",
                    cause);
        }
        return new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + " could not be opened: " + cause, cause);
    }

    /**
     * Appends to a partition this broker leads, calling {@link PartitionLog#append} in the order
     * of these calls even while the log is still opening (one writer per partition: see
     * {@link PartitionWriters}). Each append waits only for the previous one to be
     * <em>submitted</em>, not durable.
     */
    public CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records) {
        return append(tp, records, Long.MAX_VALUE);
    }

    /**
     * {@link #append(TopicPartition, MemoryRecords)}, refused with REQUEST_TIMED_OUT instead of
     * appended when the log is ready only after {@code deadlineNanos} (of {@link System#nanoTime}),
     * together with the appends queued behind it; so is every append that waited for an open that
     * failed (see {@link PartitionWriters}). Clients retry them in order.
     */
    public CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos) {
        return acknowledged(tp, writers.append(tp, records, deadlineNanos));
    }

    private CompletableFuture<AppendResult> acknowledged(TopicPartition tp, CompletableFuture<AppendResult> append) {
        return append.thenApply(result -> {
            if (!acknowledgeable.getAsBoolean()) {
                throw new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + ": this broker's session with "
                        + "the controller may have lapsed (no heartbeat answered within the lease); the append is not "
                        + "acknowledged");
            }
            return result;
        });
    }

    /**
     * {@link #append(TopicPartition, MemoryRecords, long)} for a produce of {@code transactionalId}:
     * the first batch of a transaction in the partition is checked with its coordinator before it is
     * appended, as {@code check} says (KIP-890; see {@link PartitionWriters}), once a verifier is set
     * ({@link #verifyTransactionsWith}).
     */
    public CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos,
            String transactionalId, TransactionCheck check) {
        return append(tp, records, deadlineNanos, transactionalId, check, null);
    }

    /**
     * As above, the coordinator check asked together with the other partitions registered in
     * {@code batch} (one produce request's) if it starts before the caller closes the batch; null:
     * asked on its own.
     */
    public CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos,
            String transactionalId, TransactionCheck check, VerificationBatch batch) {
        return acknowledged(tp, writers.append(tp, records, deadlineNanos, transactionalId, check, batch));
    }

    /** Transactions' first batches are checked with {@code verifier} from now on (transactions on). */
    public void verifyTransactionsWith(TransactionVerifier verifier) {
        writers.verifyTransactionsWith(verifier);
    }

    /**
     * A coordinator's write to its own partition ({@code write} on the log: a plain batch,
     * {@link PartitionLog#appendAsCoordinator} or {@link PartitionLog#appendMarker}) in order with the
     * partition's other appends (so its records and markers reach the log in the order it issued
     * them), acknowledged as {@link #append(TopicPartition, MemoryRecords)} is; refused with
     * NOT_LEADER_OR_FOLLOWER unless the log is at {@code leaderEpoch}, the one the coordinator
     * loaded the partition at: a partition that moved away and back since is at a higher epoch, and
     * another broker may have written to it meanwhile, so state loaded before must not be written
     * into it (the coordinator reloads first).
     */
    public CompletableFuture<AppendResult> appendAtLeaderEpoch(TopicPartition tp, int leaderEpoch,
            java.util.function.Function<PartitionLog, CompletableFuture<AppendResult>> write) {
        return acknowledged(tp, writers.write(tp, log -> log.leaderEpoch() == leaderEpoch ? write.apply(log)
                : CompletableFuture.failedFuture(new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp
                        + " is at leader epoch " + log.leaderEpoch() + ", its coordinator loaded it at "
                        + leaderEpoch))));
    }

    /**
     * {@link PartitionLog#startTransactionVerification} on a partition this broker leads, for a
     * coordinator about to check a producer's transaction before writing into its own partition;
     * fails as {@link #leaderLog} does.
     */
    public CompletableFuture<VerificationGuard> startTransactionVerification(TopicPartition tp, long producerId,
            short producerEpoch) {
        return leaderLog(tp).thenApply(log -> log.startTransactionVerification(producerId, producerEpoch));
    }

    /**
     * A produce this broker refused with UNKNOWN_TOPIC_ID (a topic id its metadata does not know yet:
     * Kafka 4's clients name topics by id): its idempotent batches count as refused unappended for
     * the partition, once the id is known (see {@link PartitionWriters#refusedUnknownTopicId}).
     */
    public void refusedUnknownTopicId(java.util.UUID topicId, int partition, MemoryRecords records) {
        writers.refusedUnknownTopicId(topicId, partition, records);
    }

    /** Drops expired refusals of producer batches (see {@link PartitionWriters}). Run by the periodic pass. */
    void forgetExpiredRefusals() {
        writers.forgetExpiredRefusals();
    }

    /** How many partitions have appends queued or refusals remembered now (tests). */
    int appendQueueCount() {
        return writers.writerCount();
    }

    /** How many topic-id partitions have refusals remembered (tests). */
    int refusedTopicIdCount() {
        return writers.refusedTopicIdCount();
    }

    /** Applies a topic's changed configs to its open logs now (the periodic pass would within a minute). */
    public void configsChanged(TopicInfo topic) {
        LogConfig config = LogConfig.fromTopicOverrides(topic.configs(), brokerDefaults());
        openLogs().forEach((tp, pl) -> {
            if (tp.topic().equals(topic.name())) {
                pl.updateConfig(config);
            }
        });
    }

    /** Applies changed broker-wide topic defaults to every open log now. */
    public void brokerDefaultsChanged() {
        MetadataCache.View view = cache.view();
        openLogs().forEach((tp, pl) -> {
            TopicInfo topic = view.topic(tp.topic());
            if (topic != null) {
                pl.updateConfig(LogConfig.fromTopicOverrides(topic.configs(), brokerDefaults()));
            }
        });
    }

    /** Closes logs this broker no longer leads and applies retention to the others. */
    void maintain() {
        try {
            forgetExpiredRefusals();
            MetadataCache.View view = cache.view();
            for (Map.Entry<TopicPartition, Entry> e : snapshot()) {
                TopicPartition tp = e.getKey();
                if (!release(view, tp, e.getValue()) && e.getValue().log().isDone()
                        && !e.getValue().log().isCompletedExceptionally()) {
                    PartitionLog pl = e.getValue().log().join();
                    pl.updateConfig(LogConfig.fromTopicOverrides(view.topic(tp.topic()).configs(), brokerDefaults()));
                    pl.applyRetention(clock.getAsLong()).exceptionally(err -> {
                        log.warn("Retention of {} failed", tp, err);
                        return 0L;
                    });
                }
            }
        } catch (RuntimeException e) {
            log.warn("Partition maintenance failed", e);
        }
    }

    /** Closes the logs this broker no longer leads (see {@link #RELEASE_INTERVAL_MS}). */
    void releaseMoved() {
        MetadataCache.View view = cache.view();
        for (Map.Entry<TopicPartition, Entry> e : snapshot()) {
            release(view, e.getKey(), e.getValue());
        }
    }

    private synchronized List<Map.Entry<TopicPartition, Entry>> snapshot() {
        return new ArrayList<>(logs.entrySet());
    }

    /** Closes {@code tp}'s log if the metadata no longer has this broker lead it at that epoch; whether it did. */
    private boolean release(MetadataCache.View view, TopicPartition tp, Entry entry) {
        TopicInfo topic = view.topic(tp.topic());
        PartitionInfo p = topic == null || tp.partition() >= topic.partitions().size() ? null
                : topic.partitions().get(tp.partition());
        if (p != null && p.brokerId() == brokerId && p.leaderEpoch() == entry.leaderEpoch()) {
            return false;
        }
        boolean removed;
        CompletableFuture<Void> closed = new CompletableFuture<>();
        synchronized (this) {
            removed = logs.remove(tp, entry);
            if (removed) {
                // In the same step as the removal: an open of the partition right after must find it.
                closing.put(tp, closed);
            }
        }
        if (removed) {
            log.info("No longer serving {} (leader epoch {}); closing its log", tp, entry.leaderEpoch());
            closeQuietly(entry.log()).whenComplete((v, e) -> {
                synchronized (this) {
                    closing.remove(tp, closed);
                }
                closed.complete(null);
            });
        }
        return true;
    }

    private static CompletableFuture<Void> closeQuietly(CompletableFuture<PartitionLog> log) {
        return log.thenCompose(PartitionLog::close).exceptionally(e -> null);
    }

    /** The logs open now (for DescribeLogDirs and tests). */
    public synchronized Map<TopicPartition, PartitionLog> openLogs() {
        Map<TopicPartition, PartitionLog> out = new HashMap<>();
        logs.forEach((tp, e) -> {
            if (e.log().isDone() && !e.log().isCompletedExceptionally()) {
                out.put(tp, e.log().join());
            }
        });
        return out;
    }

    /**
     * Closes every log at once (each uploads what only this broker's WAL holds and closes its
     * streams); later opens fail with NOT_LEADER_OR_FOLLOWER. Whether every log closed cleanly
     * within a minute (a log that never opened counts as closed). Logs already released and still
     * closing (moved away just before: a drain's moves reach the change feed listener first) are
     * waited for too: a broker leaves the cluster after this, and the new owners wait for their
     * streams only while this broker is live, so leaving before those uploads end would let a new
     * owner open a partition without the records only this broker's WAL held.
     */
    public boolean closeLogs() {
        List<CompletableFuture<PartitionLog>> all;
        List<CompletableFuture<Void>> released;
        synchronized (this) {
            closed = true;
            all = logs.values().stream().map(Entry::log).toList();
            logs.clear();
            released = List.copyOf(this.closing.values());
        }
        CompletableFuture<?>[] closing = java.util.stream.Stream.concat(all.stream()
                .map(f -> f.handle((pl, openError) -> pl)
                        .thenCompose(pl -> pl == null ? CompletableFuture.completedFuture(null) : pl.close())),
                        released.stream())
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(closing).get(60, TimeUnit.SECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Not every partition log closed cleanly", e);
        }
        return false;
    }

    /** Closes every log (see {@link #closeLogs}). */
    @Override
    public void close() {
        closeLogs();
    }
}
