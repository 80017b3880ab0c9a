package io.aloft.broker.log;

import io.aloft.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The write side of a {@link PartitionLog}: the log end, the appends in flight, the log start's
 * moves and the checkpoints. It checks validated batches against producer state, gives them
 * offsets, updates the index and hands them to the records stream in offset order; it writes
 * checkpoints of the log's state to the state stream once the data they cover is durable.
 *
 * <p>Not thread-safe by itself: every method runs with the owning log's lock held (which is what
 * keeps the order of offsets the order of stream appends); the "Locked" suffix says so. The log
 * start offset is volatile so readers need no lock.
 */
final class LogWriter {
    private final PartitionLog owner;
    private final TopicPartition tp;
    private final Stream records;
    private final Stream state;
    private final int leaderEpoch;
    private final LongSupplier time;
    private final LogIndex index;
    private final ProducerStateManager producers;
    private final LeaderEpochCache epochs;
    private final TransactionIndex txns;
    private final CleanerState cleaner;
    private final HighWatermark highWatermark;
    /** Producers whose next transaction is being verified with their coordinator (KIP-890 part 1). */
    private final TransactionVerifications verifications = new TransactionVerifications();

    /** Offset the next batch takes. */
    private long nextOffset;
    private long bytesSinceCheckpoint;
    /** Bytes of partial checkpoints since the last full one. */
    private long partialBytesSinceFull;
    /** Completes when every append issued so far is durable. */
    private CompletableFuture<Void> lastAppend = CompletableFuture.completedFuture(null);
    /** Completes when every checkpoint issued so far is written. */
    private CompletableFuture<Void> checkpoints = CompletableFuture.completedFuture(null);
    /** Written under the log's lock. */
    private volatile long logStartOffset;

    LogWriter(PartitionLog owner, Stream records, Stream state, int leaderEpoch, LongSupplier time,
            PartitionLogLoader.Loaded loaded, HighWatermark highWatermark) {
        this.owner = owner;
        this.tp = owner.topicPartition();
        this.records = records;
        this.state = state;
        this.leaderEpoch = leaderEpoch;
        this.time = time;
        this.index = loaded.index();
        this.producers = loaded.producers();
        this.epochs = loaded.epochs();
        this.txns = loaded.txns();
        this.cleaner = loaded.cleaner();
        this.logStartOffset = loaded.logStartOffset();
        this.nextOffset = loaded.endOffset();
        this.highWatermark = highWatermark;
    }

    long logStartOffset() {
        return logStartOffset;
    }

    /**
     * {@link PartitionLog#startTransactionVerification}'s locked part: the sentinel while the
     * producer's transaction is open here at {@code epoch}, else the producer's guard.
     */
    VerificationGuard startVerificationLocked(long producerId, short epoch, boolean supportsEpochBump, long now) {
        return producers.hasOngoingTransaction(producerId, epoch) ? VerificationGuard.SENTINEL
                : verifications.start(producerId, epoch, supportsEpochBump, now);
    }

    /**
     * {@link PartitionLog#append}'s locked part: producer checks (a duplicate of one of a
     * producer's last batches answers its first offsets, appending nothing), verification of a
     * transaction's first batch (unless {@code guard} is null: the caller does not verify), room,
     * then offsets.
     *
     * @param fromClient false for a coordinator's own batches ({@link PartitionLog#appendAsCoordinator}):
     *     no sequence or duplicate checks
     */
    CompletableFuture<AppendResult> appendLocked(List<BatchValidator.Checked> batches, LogConfig cfg, long now,
            long logAppendTime, boolean fromClient, VerificationGuard guard) {
        ProducerStateManager.Update update = producers.update();
        long next = nextOffset;
        for (BatchValidator.Checked c : batches) {
            RecordBatch b = c.batch();
            if (b.hasProducerId()) {
                ProducerStateManager.BatchMetadata dup = fromClient ? update.duplicateOf(b) : null;
                if (dup != null) {
                    // Kafka answers the first duplicate found and appends nothing of the request.
                    AppendResult r = new AppendResult(dup.firstOffset(), dup.lastOffset(),
                            dup.logAppendTimeMs(), logStartOffset);
                    return lastAppend.thenApply(v -> r);
                }
                if (guard != null && b.isTransactional() && !b.isControlBatch()
                        && !producers.hasOngoingTransaction(b.producerId(), b.producerEpoch())
                        && !verifications.holds(b.producerId(), guard)) {
                    // KIP-890 part 1: the transaction this batch would open was not verified with its
                    // coordinator, or has ended since (a marker dropped the guard): a hanging transaction.
                    return CompletableFuture.failedFuture(new PartitionLogException(Errors.INVALID_TXN_STATE,
                            tp + ": record of producer " + b.producerId() + " epoch " + b.producerEpoch()
                                    + " was not part of an ongoing transaction"));
                }
                long maxTs = logAppendTime != RecordBatch.NO_TIMESTAMP ? now : c.maxTimestamp();
                try {
                    update.append(b, next, next + c.count() - 1, maxTs, logAppendTime, fromClient);
                } catch (PartitionLogException e) {
                    return CompletableFuture.failedFuture(new PartitionLogException(e.error(),
                            tp + ": " + e.getMessage()));
                }
            }
            next += c.count();
        }
        PartitionLogException full = refusedForRoom(batches);
        if (full != null) {
            return CompletableFuture.failedFuture(full); // nothing taken: the update is dropped
        }
        update.commit(txns);
        for (BatchValidator.Checked c : batches) {
            if (c.batch().isTransactional()) {
                verifications.clear(c.batch().producerId()); // its transaction is open here now
            }
        }
        return writeLocked(batches, cfg, now, logAppendTime);
    }

    /** {@link PartitionLog#appendMarker}'s locked part: fencing, room, the transaction's end, the write. */
    CompletableFuture<AppendResult> appendMarkerLocked(BatchValidator.Checked marker, long producerId,
            short producerEpoch, int coordinatorEpoch, boolean commit, short transactionVersion, LogConfig cfg,
            long now, long logAppendTime) {
        PartitionLogException refused = null;
        try {
            producers.checkMarker(producerId, producerEpoch, coordinatorEpoch, transactionVersion);
        } catch (PartitionLogException e) {
            refused = new PartitionLogException(e.error(), tp + ": " + e.getMessage());
        }
        refused = refused != null ? refused : refusedForRoom(List.of(marker));
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        long first = producers.endTransaction(producerId, producerEpoch, coordinatorEpoch, now);
        // A batch verified for the transaction just ended must not open one.
        verifications.markerWritten(producerId, producerEpoch);

        if (first >= 0) {
            txns.end(producerId, first, nextOffset, !commit);
        }
        return writeLocked(List.of(marker), cfg, now, logAppendTime);
    }

    /**
     * KAFKA_STORAGE_ERROR (retriable) when the records stream would not take these batches at once
     * (object storage down and the log cache full of data not yet uploaded); null otherwise. Asked
     * before offsets and producer state move: an append that waited for room past
     * {@code s3.append.timeout.ms} and failed would leave them ahead of the data and stop the log.
     */
    private PartitionLogException refusedForRoom(List<BatchValidator.Checked> batches) {
        int bytes = 0;
        for (BatchValidator.Checked c : batches) {
            bytes += c.bytes().remaining();
        }
        if (records.admits(bytes)) {
            return null;
        }
        return new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + ": the log cache is full of data not yet "
                + "uploaded to object storage (slow or unavailable); nothing was appended (retry)");
    }

    private CompletableFuture<AppendResult> writeLocked(List<BatchValidator.Checked> batches, LogConfig cfg,
            long now, long logAppendTime) {
        long base = nextOffset;
        List<CompletableFuture<Long>> appends = new ArrayList<>(batches.size());
        for (BatchValidator.Checked c : batches) {
            long assigned = nextOffset;
            BatchValidator.assign(c, assigned, leaderEpoch, cfg.timestampType(), now);
            long maxTs = logAppendTime != RecordBatch.NO_TIMESTAMP ? now : c.maxTimestamp();
            int size = c.bytes().remaining();
            index.add(assigned, c.count(), maxTs, size, cfg.indexEntryBytes());
            appends.add(streamAppend(c).thenApply(got -> {
                if (got != assigned) {
                    throw new IllegalStateException("the records stream placed a batch at " + got + ", not "
                            + assigned);
                }
                return got;
            }));
            nextOffset += c.count();
            bytesSinceCheckpoint += size;
        }
        long end = nextOffset;
        CompletableFuture<AppendResult> result = CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new))
                .handle((v, error) -> {
                    if (error != null) {
                        throw owner.fail(error);
                    }
                    highWatermark.advanceTo(end);
                    return new AppendResult(base, end - 1, logAppendTime, logStartOffset);
                });
        lastAppend = result.thenApply(r -> null);
        if (bytesSinceCheckpoint >= PartitionLog.CHECKPOINT_INTERVAL_BYTES) {
            checkpointLocked(false, owner.config());
        }
        return result;
    }

    /** The stream append, with a synchronous throw turned into a failed future (handled like any failure). */
    private CompletableFuture<Long> streamAppend(BatchValidator.Checked c) {
        try {
            return records.append(c.bytes(), c.count());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Moves the log start to {@code target} (nothing if it is not above it), checkpoints, then
     * trims the records stream.
     *
     * @return the log start offset afterwards, once the move is durable
     */
    CompletableFuture<Long> moveLogStartLocked(long target, LogConfig cfg) {
        if (target <= logStartOffset) {
            return CompletableFuture.completedFuture(logStartOffset);
        }
        logStartOffset = target;
        index.truncateHead(target);
        txns.truncateHead(target);
        epochs.truncateFromStart(target);
        // The stream is trimmed at a batch boundary: the start of the entry holding the new start.
        long trimTo = index.size() > 0 ? Math.min(index.base(0), target) : target;
        // Checkpoint first: a restart must not find the stream trimmed past the recorded log start.
        return checkpointLocked(false, cfg).thenCompose(v -> records.trim(trimTo)).handle((v, error) -> {
            if (error != null) {
                throw owner.fail(error);
            }
            return target;
        });
    }

    /**
     * Writes a checkpoint of the current state once every append issued so far is durable (a
     * checkpoint never covers data that could be lost). Every so often it is a full one, and the
     * state stream is trimmed to it, so that stream stays about twice the state's size.
     */
    CompletableFuture<Void> checkpointLocked(boolean forceFull, LogConfig cfg) {
        producers.expire(time.getAsLong(), cfg.producerIdExpirationMs());
        verifications.expire(time.getAsLong(), cfg.producerIdExpirationMs());
        long fullSize = index.checkpointSize(true) + producers.snapshotSize(true) + txns.checkpointSize(true);
        boolean full = forceFull || partialBytesSinceFull >= fullSize || txns.needsFullCheckpoint();
        ByteBuffer payload = Checkpoint.encode(full, logStartOffset, index, producers, epochs, cleaner, txns);
        index.markClean();
        partialBytesSinceFull = full ? 0 : partialBytesSinceFull + payload.remaining();
        bytesSinceCheckpoint = 0;
        checkpoints = checkpoints.thenCombine(lastAppend, (a, b) -> (Void) null)
                .thenCompose(v -> state.append(payload, 1))
                .thenCompose(at -> full ? state.trim(at) : CompletableFuture.completedFuture(null))
                .whenComplete((v, error) -> {
                    if (error != null) {
                        owner.fail(error);
                    }
                });
        return checkpoints;
    }
}
