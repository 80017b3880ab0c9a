package io.aloft.broker.log;

import io.aloft.stream.Stream;
import io.aloft.stream.StreamFencedException;
import io.aloft.stream.store.StreamStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka partition on two streams: the <b>records stream</b> holds the partition's record
 * batches, one Kafka batch per stream batch, so stream offsets are Kafka offsets; the <b>state
 * stream</b> holds checkpoints ({@link Checkpoint}) of the time index, producer state and log
 * start offset, so a reopened log replays only the records appended after the last checkpoint.
 *
 * <h2>Append</h2>
 * Batches are validated as Kafka does ({@link BatchValidator}), then, under {@code lock}, the
 * log's {@link LogWriter} checks them against producer state, gives them offsets from the log end,
 * rewrites them in place and hands them to the records stream. Offsets are taken and stream appends issued in one critical section, so the
 * order of offsets is the order of stream appends; the stream acknowledges appends in that order
 * once durable in the WAL, and the high watermark moves then. A single replica means the high
 * watermark is the log end: everything below it is durable.
 *
 * <p>Producer state and the index are updated when offsets are taken, before the data is durable,
 * so the next pipelined batch of a producer is checked against the one before it. If a stream
 * append fails, that state is ahead of the data: the log then refuses everything
 * (KAFKA_STORAGE_ERROR, or NOT_LEADER_OR_FOLLOWER when a newer owner fenced it) and must be
 * reopened, which rebuilds the state from what is durable.
 *
 * <h2>Leader epochs</h2>
 * Every batch is stamped with the leader epoch the log was opened for, and the log keeps the first
 * offset of each epoch ({@link LeaderEpochCache}), checkpointed with the rest of its state, for
 * OffsetForLeaderEpoch. Opening with a new epoch starts it at the log end.
 *
 * <h2>Transactions</h2>
 * Transactional batches open a transaction per producer ({@link ProducerStateManager}); a marker
 * ({@link #appendMarker}) ends it. The {@link TransactionIndex} keeps what readers need: the last
 * stable offset, up to which read_committed fetches read, and the aborted transactions they list.
 *
 * <h2>Waiting readers</h2>
 * A waiting fetch registers a wake-up with each of its partitions ({@link #wakeOnData}, kept by
 * {@link HighWatermark}); the move of the high watermark (read_committed: of the last stable
 * offset) past its offset, or the log's close or failure, runs and forgets it. A fetch
 * woken elsewhere, or by its deadline, cancels its registrations, so the waiters a log holds are
 * those of fetches waiting now: one entry each, however long the log stays idle.
 *
 * <h2>Threads</h2>
 * Thread-safe: appends, reads and maintenance come from any thread; {@code lock} guards the
 * offsets, index, producer and epoch state, and orders changes to the transaction index (which
 * guards itself for readers). An append's future completes on the records stream's
 * acknowledgement thread (one thread per stream, see the stream store), in offset order, never on
 * the WAL's thread: the high watermark moves there, and the wake-ups of waiting fetches and what
 * callers chain on the future (the produce response) run there. A caller with heavy or blocking
 * work continues on its own executor. Failed futures carry a {@link PartitionLogException},
 * possibly wrapped in a {@link CompletionException} by a dependent stage.
 */
public final class PartitionLog {
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    /** Streams the controller creates per partition: records, then state. */
    public static final int STREAMS_PER_PARTITION = 2;
    /** A checkpoint is written after this many bytes of appends (and on close and log-start moves). */
    static final long CHECKPOINT_INTERVAL_BYTES = 4L << 20;
    /** DeleteRecords' "up to the high watermark" offset. */
    public static final long HIGH_WATERMARK = -1L;

    private final TopicPartition tp;
    private final Stream records;
    private final Stream state;
    private final StreamStore store;
    private final int leaderEpoch;
    private final LongSupplier time;
    private volatile LogConfig config;

    private final Object lock = new Object();
    /** Guarded by lock. */
    private final LogIndex index;
    /** Guarded by lock. */
    private final ProducerStateManager producers;
    /** Guarded by lock. */
    private final LeaderEpochCache epochs;
    /** Changed under lock; thread-safe for readers. */
    private final TransactionIndex txns;
    /** Key-compaction progress; guarded by lock. */
    private final CleanerState cleaner;
    /** The write side: log end, appends in flight, log-start moves, checkpoints; used under lock. */
    private final LogWriter writer;
    /** Set once when the log stops; never under another lock, as stream callbacks may hold the store's. */
    private final AtomicReference<PartitionLogException> failure = new AtomicReference<>();
    private volatile boolean closed;

    private final HighWatermark highWatermark;
    private final LogCompaction compaction;

    private PartitionLog(TopicPartition tp, Stream records, Stream state, StreamStore store, int leaderEpoch,
            LogConfig config, LongSupplier time, PartitionLogLoader.Loaded loaded) {
        this.tp = tp;
        this.records = records;
        this.state = state;
        this.store = store;
        this.cleaner = loaded.cleaner();
        this.leaderEpoch = leaderEpoch;
        this.config = config;
        this.time = time;
        this.index = loaded.index();
        this.producers = loaded.producers();
        this.epochs = loaded.epochs();
        this.epochs.assign(leaderEpoch, loaded.endOffset());
        this.txns = loaded.txns();
        this.highWatermark = new HighWatermark(loaded.endOffset(),
                hw -> txns.lastStableOffset(hw, logStartOffset()));
        this.writer = new LogWriter(this, records, state, leaderEpoch, time, loaded, highWatermark);
        this.compaction = new LogCompaction(this);
    }

    /**
     * Opens the partition's streams with {@code streamEpoch} (fencing any earlier owner) and
     * rebuilds its state from them.
     *
     * @param streamIds {@link #STREAMS_PER_PARTITION} stream ids, in the order the controller created them
     * @param leaderEpoch the epoch written into every batch appended
     * @param time wall-clock milliseconds
     */
    public static CompletableFuture<PartitionLog> open(TopicPartition tp, List<Long> streamIds, StreamStore store,
            long streamEpoch, int leaderEpoch, LogConfig config, LongSupplier time) {
        if (streamIds.size() != STREAMS_PER_PARTITION) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(tp + ": expected "
                    + STREAMS_PER_PARTITION + " stream ids, got " + streamIds));
        }
        CompletableFuture<Stream> records = store.openStream(streamIds.get(0), streamEpoch);
        CompletableFuture<Stream> state = store.openStream(streamIds.get(1), streamEpoch);
        return records.thenCombine(state, (r, s) -> new Stream[] {r, s}).thenCompose(streams ->
                PartitionLogLoader.load(tp, streams[0], streams[1], config, time.getAsLong()).thenApply(loaded -> {
                    PartitionLog pl = new PartitionLog(tp, streams[0], streams[1], store, leaderEpoch, config, time,
                            loaded);
                    log.info("Opened {} with stream epoch {} and leader epoch {}: offsets {}..{}, {} producers", tp,
                            streamEpoch, leaderEpoch, loaded.logStartOffset(), loaded.endOffset(),
                            loaded.producers().size());
                    return pl;
                }));
    }

    public TopicPartition topicPartition() {
        return tp;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    /** First offset still in the log (ListOffsets EARLIEST). */
    public long logStartOffset() {
        return writer.logStartOffset();
    }

    /** Offset past the last durable record: the log end and high watermark (ListOffsets LATEST). */
    public long highWatermark() {
        return highWatermark.get();
    }

    /**
     * The last stable offset: the first offset of the oldest transaction not yet durably decided,
     * else the high watermark, and never below the log start (see {@link TransactionIndex}).
     * read_committed fetches read below it; ListOffsets LATEST answers it for read_committed.
     */
    public long lastStableOffset() {
        return txns.lastStableOffset(highWatermark.get(), logStartOffset());
    }

    /**
     * Where {@code epoch} ends in this log (OffsetForLeaderEpoch): the current epoch at the high
     * watermark, an older one where the next epoch the log holds starts (see
     * {@link LeaderEpochCache#endOffsetFor}).
     */
    public EpochEndOffset endOffsetForEpoch(int epoch) {
        synchronized (lock) {
            return epochs.endOffsetFor(epoch, highWatermark.get());
        }
    }

    /** Whether this partition remembers idempotent producer {@code producerId} (and so checks its sequence). */
    public boolean knowsProducer(long producerId) {
        synchronized (lock) {
            return producers.knows(producerId);
        }
    }

    /** The idempotent and transactional producers this partition remembers (DescribeProducers). */
    public List<ActiveProducer> activeProducers() {
        synchronized (lock) {
            return producers.activeProducers();
        }
    }

    public LogConfig config() {
        return config;
    }

    /** Applies new topic settings (AlterConfigs) to later appends and retention runs. */
    public void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    /**
     * Bytes of the batches from the log start to the log end, for DescribeLogDirs. Approximate:
     * counted per index entry (about {@code index.interval.bytes}), so the first entry is counted
     * whole when the log start falls inside it, and appends not yet durable are included.
     */
    public long sizeInBytes() {
        synchronized (lock) {
            return index.totalBytes();
        }
    }

    /**
     * Validates the batches, gives them offsets at the log end and appends them.
     *
     * <p>Takes the records' buffer: its batches are rewritten in place (base offset, partition
     * leader epoch, max timestamp), as Kafka does, and the caller must not reuse it.
     *
     * @return the offsets taken, once durable; for a retry of one of a producer's last five
     *     batches, the offsets it took then (nothing is appended again). Fails with a
     *     {@link PartitionLogException}.
     */
    public CompletableFuture<AppendResult> append(MemoryRecords batchesToAppend) {
        return append(batchesToAppend, true, null);
    }

    /**
     * {@link #append(MemoryRecords)} for a produce that verifies transactions (KIP-890 part 1): a
     * transactional batch that would open a transaction is appended only with the guard this log
     * holds for its producer ({@link #startTransactionVerification}), else refused with
     * INVALID_TXN_STATE; so is a batch with the sentinel whose transaction ended meanwhile.
     *
     * @param guard from {@link #startTransactionVerification}, or null when the caller does not
     *     verify transactions (the broker's own writers, transactions off)
     */
    public CompletableFuture<AppendResult> append(MemoryRecords batchesToAppend, VerificationGuard guard) {
        return append(batchesToAppend, true, guard);
    }

    /**
     * {@link #append}, for a coordinator writing its own partition (Kafka's "coordinator" append
     * origin): a transactional batch of a producer is taken without sequence or duplicate checks,
     * since it is the coordinator's record of that producer's request, not the producer's batch
     * (Kafka's group coordinator writes a producer's transactional offsets so). The epoch is still
     * checked: an older one is refused with INVALID_PRODUCER_EPOCH. With {@code guard} (a transaction
     * the coordinator verified, KIP-890) the batch is taken as {@link #append(MemoryRecords,
     * VerificationGuard)} takes a producer's: a transaction that ended since is not reopened.
     *
     * @param guard from {@link #startTransactionVerification}, or null to check nothing
     */
    public CompletableFuture<AppendResult> appendAsCoordinator(MemoryRecords batchesToAppend,
            VerificationGuard guard) {
        return append(batchesToAppend, false, guard);
    }

    private CompletableFuture<AppendResult> append(MemoryRecords batchesToAppend, boolean fromClient,
            VerificationGuard guard) {
        long now = time.getAsLong();
        LogConfig cfg = config;
        List<BatchValidator.Checked> batches;
        try {
            batches = BatchValidator.validate(batchesToAppend, cfg, now);
        } catch (PartitionLogException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (batches.isEmpty()) {
            return CompletableFuture.completedFuture(new AppendResult(-1, -1, -1, logStartOffset()));
        }
        long logAppendTime = cfg.timestampType() == TimestampType.LOG_APPEND_TIME ? now : RecordBatch.NO_TIMESTAMP;
        synchronized (lock) {
            PartitionLogException unusable = unusable();
            if (unusable != null) {
                return CompletableFuture.failedFuture(unusable);
            }
            return writer.appendLocked(batches, cfg, now, logAppendTime, fromClient, guard);
        }
    }

    /**
     * Starts verifying that producer {@code producerId}'s batch at {@code epoch} belongs to an
     * ongoing transaction (Kafka's {@code maybeStartTransactionVerification}): the sentinel if its
     * transaction is open here at that epoch already (nothing to verify), else the guard to append
     * with once its coordinator has agreed. A marker for the producer meanwhile voids the guard.
     */
    public VerificationGuard startTransactionVerification(long producerId, short epoch) {
        return startTransactionVerification(producerId, epoch, false);
    }

    /**
     * {@link #startTransactionVerification(long, short)}; with {@code supportsEpochBump} (a batch the
     * leader adds to a transaction-version-2 producer's transaction, Kafka's flag of the same name) a
     * marker at {@code epoch} meanwhile leaves the guard: it ends the producer's previous transaction,
     * not this batch's (see {@code TransactionVerifications.markerWritten}).
     */
    public VerificationGuard startTransactionVerification(long producerId, short epoch, boolean supportsEpochBump) {
        long now = time.getAsLong();
        synchronized (lock) {
            return writer.startVerificationLocked(producerId, epoch, supportsEpochBump, now);
        }
    }

    /**
     * Appends a transaction marker (WriteTxnMarkers): a control batch with one COMMIT or ABORT
     * record of {@code producerId}, placed at the log end and stamped with the leader epoch like any
     * batch, without sequence checks. It ends the producer's open transaction: once the marker is
     * durable the last stable offset passes the transaction (for ABORT, listed as aborted). A
     * marker for a producer without an open transaction is written all the same, as in Kafka.
     *
     * @param transactionVersion the coordinator's transaction version, which decides what producer
     *     epoch is stale (see {@link ProducerStateManager#checkMarker})
     * @return the marker's offset (as base and last offset), once durable; fails with a
     *     {@link PartitionLogException}: INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, or
     *     as {@link #append} fails
     */
    public CompletableFuture<AppendResult> appendMarker(long producerId, short producerEpoch, int coordinatorEpoch,
            boolean commit, short transactionVersion) {
        long now = time.getAsLong();
        LogConfig cfg = config;
        long logAppendTime = cfg.timestampType() == TimestampType.LOG_APPEND_TIME ? now : RecordBatch.NO_TIMESTAMP;
        BatchValidator.Checked marker = BatchValidator.marker(producerId, producerEpoch, coordinatorEpoch, commit, now);
        synchronized (lock) {
            PartitionLogException refused = unusable();
            if (refused != null) {
                return CompletableFuture.failedFuture(refused);
            }
            return writer.appendMarkerLocked(marker, producerId, producerEpoch, coordinatorEpoch, commit,
                    transactionVersion, cfg, now, logAppendTime);
        }
    }

    /** {@link #read(long, int, boolean, IsolationLevel)} read_uncommitted. */
    public CompletableFuture<LogReadResult> read(long fetchOffset, int maxBytes, boolean minOneMessage) {
        return read(fetchOffset, maxBytes, minOneMessage, IsolationLevel.READ_UNCOMMITTED);
    }

    /**
     * Reads stored batches from {@code fetchOffset}, as they are stored, up to the high watermark
     * (read_uncommitted) or the last stable offset (read_committed, which also lists the aborted
     * transactions overlapping the batches returned): the first batch holds {@code fetchOffset} and
     * may start below it. Batches are never split: {@code maxBytes} bounds the total unless
     * {@code minOneMessage} lets a larger first batch through.
     *
     * @return fails with OFFSET_OUT_OF_RANGE when {@code fetchOffset} is outside [log start, high watermark]
     */
    public CompletableFuture<LogReadResult> read(long fetchOffset, int maxBytes, boolean minOneMessage,
            IsolationLevel isolation) {
        PartitionLogException unusable = unusable();
        if (unusable != null) {
            return CompletableFuture.failedFuture(unusable);
        }
        long hw = highWatermark.get();
        long start = logStartOffset();
        if (fetchOffset < start || fetchOffset > hw) {
            return CompletableFuture.failedFuture(new PartitionLogException(Errors.OFFSET_OUT_OF_RANGE, tp
                    + ": offset " + fetchOffset + " is outside [" + start + ", " + hw + "]"));
        }
        long lso = txns.lastStableOffset(hw, start);
        boolean committed = isolation == IsolationLevel.READ_COMMITTED;
        long end = committed ? lso : hw;
        if (fetchOffset >= end || (maxBytes <= 0 && !minOneMessage)) {
            return CompletableFuture.completedFuture(new LogReadResult(BatchRecords.EMPTY, hw, lso, start,
                    committed ? List.of() : null));
        }
        return records.fetch(fetchOffset, end, Math.max(1, maxBytes)).handle((fetched, error) -> {
            if (error != null) {
                throw StoredRecords.readError(tp, error);
            }
            StoredRecords.Selected got = StoredRecords.select(fetched, fetchOffset, maxBytes, minOneMessage);
            return new LogReadResult(got.batches(), hw, lso, logStartOffset(),
                    committed ? txns.abortedIn(fetchOffset, got.endOffset()) : null);
        });
    }

    /**
     * What {@link #read} answers at {@code fetchOffset} when there is nothing to read there (it is
     * the high watermark, or for read_committed at or above the last stable offset), at once and
     * without a future; null when there may be records, or the log cannot be read (then
     * {@link #read} says why). A fetch over many partitions finds most of them so.
     */
    public LogReadResult nothingNewAt(long fetchOffset, IsolationLevel isolation) {
        long hw = highWatermark.get();
        long start = logStartOffset();
        long lso = txns.lastStableOffset(hw, start);
        boolean committed = isolation == IsolationLevel.READ_COMMITTED;
        if (fetchOffset < (committed ? lso : hw) || fetchOffset > hw || failure.get() != null || closed) {
            return null;
        }
        return new LogReadResult(BatchRecords.EMPTY, hw, lso, start, committed ? List.of() : null);
    }

    /**
     * Completes once the high watermark (read_committed: the last stable offset) is above
     * {@code offset} (at once if it already is), or when the log closes or fails, so a waiting
     * fetch should read again after it completes. A caller that stops waiting for other reasons
     * completes or cancels the future itself, which removes it from this log at once.
     */
    public CompletableFuture<Void> awaitData(long offset, IsolationLevel isolation) {
        return highWatermark.await(offset, isolation == IsolationLevel.READ_COMMITTED, this::stopped);
    }

    /**
     * Registers {@code wake} to run once, on the thread that moves the high watermark (the records
     * stream's acknowledgement thread; see the class comment), when the high watermark
     * (read_committed: the last stable offset) moves above {@code offset}, or when the log closes
     * or fails. A fetch waiting on many partitions registers one {@code wake} with each and, once
     * woken by any (or by its deadline), cancels it with {@link #cancelWake} everywhere: so a log
     * that gets no data for a long time does not collect the waits of every fetch that ever
     * watched it.
     *
     * @return false, registering nothing, if that is already so (the caller reads again at once)
     */
    public boolean wakeOnData(long offset, IsolationLevel isolation, Runnable wake) {
        return highWatermark.wakeOn(offset, isolation == IsolationLevel.READ_COMMITTED, this::stopped, wake);
    }

    /** Removes a {@link #wakeOnData} registration that has not run; nothing if it has. */
    public void cancelWake(Runnable wake) {
        highWatermark.cancel(wake);
    }

    /** How many {@link #wakeOnData} registrations are waiting (tests). */
    int waiting() {
        return highWatermark.waiting();
    }

    private boolean stopped() {
        return closed || failure.get() != null;
    }

    /**
     * ListOffsets by timestamp: the first record at or above the log start whose timestamp is at
     * least {@code timestampMs} (see {@link TimestampLookups#offsetForTimestamp}). Empty when no
     * durable record does.
     */
    public CompletableFuture<Optional<TimestampOffset>> offsetForTimestamp(long timestampMs) {
        return TimestampLookups.offsetForTimestamp(this, timestampMs);
    }

    /**
     * ListOffsets MAX_TIMESTAMP: the first record with the largest timestamp at or above the log
     * start (see {@link TimestampLookups#maxTimestamp}). Empty for an empty log.
     */
    public CompletableFuture<Optional<TimestampOffset>> maxTimestamp() {
        return TimestampLookups.maxTimestamp(this);
    }

    /**
     * DeleteRecords: moves the log start to {@code offset} ({@link #HIGH_WATERMARK} for the high
     * watermark); an offset at or below the current log start changes nothing.
     *
     * @return the log start offset afterwards, once the move is durable; fails with
     *     OFFSET_OUT_OF_RANGE when {@code offset} is above the high watermark
     */
    public CompletableFuture<Long> deleteRecordsBefore(long offset) {
        synchronized (lock) {
            PartitionLogException unusable = unusable();
            if (unusable != null) {
                return CompletableFuture.failedFuture(unusable);
            }
            if (!config.delete()) {
                // Kafka's answer: without "delete" in cleanup.policy records go only by compaction.
                return CompletableFuture.failedFuture(new PartitionLogException(Errors.POLICY_VIOLATION, "Records of "
                        + "partition " + tp + " can not be deleted due to the configured policy ("
                        + LogConfig.CLEANUP_POLICY_CONFIG + "=" + config.cleanupPolicy() + ")"));
            }
            long hw = highWatermark.get();
            long target = offset == HIGH_WATERMARK ? hw : offset;
            if (target < 0 || target > hw) {
                return CompletableFuture.failedFuture(new PartitionLogException(Errors.OFFSET_OUT_OF_RANGE, tp
                        + ": cannot delete records before " + offset + ", above the high watermark " + hw));
            }
            return writer.moveLogStartLocked(target, config);
        }
    }

    /**
     * Deletes whole index entries from the log start, oldest first: those whose largest timestamp
     * is more than {@code retention.ms} before {@code nowMs}, then those the log can lose while
     * still holding at least {@code retention.bytes}. -1 disables either rule; a topic whose
     * {@code cleanup.policy} lacks {@code delete} keeps everything (compaction removes records).
     *
     * @return the log start offset afterwards, once the move is durable
     */
    public CompletableFuture<Long> applyRetention(long nowMs) {
        synchronized (lock) {
            PartitionLogException unusable = unusable();
            if (unusable != null) {
                return CompletableFuture.failedFuture(unusable);
            }
            LogConfig cfg = config;
            if (!cfg.delete()) {
                return CompletableFuture.completedFuture(logStartOffset()); // compacted only: no retention
            }
            return writer.moveLogStartLocked(index.retainedFrom(logStartOffset(), highWatermark.get(), nowMs,
                    cfg.retentionMs(), cfg.retentionBytes()), cfg);
        }
    }

    CompletableFuture<Void> checkpointLocked(boolean forceFull) {
        return writer.checkpointLocked(forceFull, config);
    }

    /** The log cleaner's access to this log (see {@link LogCompaction}). */
    public LogCompaction compaction() {
        return compaction;
    }

    // ---- for LogCompaction, which works under this log's lock ----

    Object lock() {
        return lock;
    }

    LogIndex index() {
        return index;
    }

    CleanerState cleanerState() {
        return cleaner;
    }

    Map<Long, Long> producerLastOffsets() {
        return producers.lastOffsets();
    }

    /** See {@link CleaningPlan#producerMarkerEpochs}; call under the lock. */
    Map<Long, Short> producerMarkerEpochs() {
        return producers.markerEpochs();
    }

    TransactionIndex txns() {
        return txns;
    }

    Stream records() {
        return records;
    }

    StreamStore store() {
        return store;
    }

    /** Writes a checkpoint now (for tests); completes once it is durable. */
    CompletableFuture<Void> checkpoint() {
        synchronized (lock) {
            return checkpointLocked(false);
        }
    }

    /**
     * Writes a last checkpoint, then closes both streams (their data is uploaded and the next owner
     * opens them with a higher epoch). Waiting readers are woken; later calls fail with
     * NOT_LEADER_OR_FOLLOWER.
     */
    public CompletableFuture<Void> close() {
        CompletableFuture<Void> checkpointed;
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            closed = true;
            checkpointed = failure.get() == null ? checkpointLocked(false) : CompletableFuture.completedFuture(null);
        }
        highWatermark.wakeAll();
        return checkpointed.handle((v, error) -> (Void) null)
                .thenCompose(v -> CompletableFuture.allOf(records.close(), state.close()))
                .whenComplete((v, error) -> log.info("Closed {} at offsets {}..{}", tp, logStartOffset(),
                        highWatermark.get()));
    }

    /** Why the log refuses work (failed or closed), or null. */
    PartitionLogException unusable() {
        PartitionLogException failed = failure.get();
        if (failed != null) {
            return failed;
        }
        if (closed) {
            return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + " is closed on this broker");
        }
        return null;
    }

    /** Stops the log after a stream failure (its state may be ahead of its data); returns the error. */
    PartitionLogException fail(Throwable error) {
        Throwable cause = StoredRecords.unwrap(error);
        if (cause instanceof PartitionLogException ple) {
            return ple;
        }
        PartitionLogException ple;
        if (cause instanceof StreamFencedException) {
            ple = new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + " is owned by a newer epoch", cause);
        } else {
            ple = new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + " failed to append: " + cause, cause);
        }
        if (!failure.compareAndSet(null, ple)) {
            return failure.get();
        }
        if (ple.error() == Errors.NOT_LEADER_OR_FOLLOWER) {
            log.info("{} was fenced by a newer owner; it refuses further requests", tp);
        } else {
            log.error("{} stops: an append failed and its state may be ahead of its data; reopen it", tp, cause);
        }
        highWatermark.wakeAll();
        return ple;
    }

    @Override
    public String toString() {
        return "PartitionLog(" + tp + ", " + logStartOffset() + ".." + highWatermark.get() + ")";
    }
}
