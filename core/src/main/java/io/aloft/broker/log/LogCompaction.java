package io.aloft.broker.log;

import io.aloft.stream.FetchResult;
import io.aloft.stream.store.RangeRewrite;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * The log cleaner's access to one {@link PartitionLog}: what to clean ({@link #plan}), the stored
 * batches to read ({@link #read}), and the two-step commit of a compacted range
 * ({@link #rewrite}, then {@link #commit}). The log's offsets, high watermark and log start offset
 * never move because of it.
 *
 * <h2>Commit, and crash safety</h2>
 * The new batches are uploaded as new objects while the old data stays in force. Then, under the
 * log's lock, a checkpoint records that a compaction below {@code end} is being committed; once it
 * is durable the range is replaced in metadata (one command, fenced by the stream epoch); then the
 * time index's entries below {@code end} are replaced by the compacted range's and a full
 * checkpoint records the new index and the cleaned-up-to offset. A crash before the metadata
 * command leaves the old data; after it, the new; either way a log reopened with the marker set
 * rebuilds its time index below {@code end} from the data in force (see
 * {@link PartitionLogLoader}), so the index never describes bytes that are gone. Cleaning again is
 * idempotent: the latest record of each key is the same.
 *
 * <p>Thread-safe: each method takes the log's lock for the moments it reads or changes the log's
 * state; a cleaner thread calls them for one partition at a time, and {@link #commit} blocks it.
 */
public final class LogCompaction {
    private final PartitionLog log;

    LogCompaction(PartitionLog log) {
        this.log = log;
    }

    public PartitionLog log() {
        return log;
    }

    /**
     * What to clean, as of now (see {@link CleaningPlan} and {@link CleaningPlanner}). The cleanable
     * part ends at the last stable offset at the latest, as in Kafka: records of a transaction not
     * yet decided are never compacted, and every transaction below it is decided, so the plan
     * knows which of them were aborted.
     */
    public CleaningPlan plan(long nowMs) {
        synchronized (log.lock()) {
            long bound = Math.min(log.records().committedOffset(), log.lastStableOffset());
            CleaningPlan plan = CleaningPlanner.plan(log.topicPartition(), log.config(), log.index(),
                    log.records().startOffset(), log.logStartOffset(), bound,
                    log.cleanerState(), log.producerLastOffsets(), nowMs);
            plan = plan.withTransactions(log.txns().abortedBelow(plan.cleanableEnd()), log.producerMarkerEpochs());
            if (plan.cleanableEnd() == log.index().endOffset()) {
                // Appends from now on start a new entry, so the cleanable end stays an entry boundary.
                log.index().sealTail();
            }
            return plan;
        }
    }

    /**
     * The largest time-index entry boundary at or below {@code offset}: where a cleaning whose key
     * map filled at {@code offset} should end, so it replaces whole entries.
     */
    public long entryBoundaryAtOrBelow(long offset) {
        synchronized (log.lock()) {
            return CleaningPlanner.floorBase(log.index(), offset);
        }
    }

    /** Stored batches from the one holding {@code from} towards {@code to}, as the records stream holds them. */
    public CompletableFuture<FetchResult> read(long from, long to, int maxBytes) {
        return log.records().fetch(from, to, maxBytes).handle((fetched, error) -> {
            if (error != null) {
                throw StoredRecords.readError(log.topicPartition(), error);
            }
            return fetched;
        });
    }

    /**
     * Starts the rewrite of {@code [start, end)}, a committed range of the records stream, into new
     * objects of about {@code maxObjectBytes} each.
     *
     * @throws PartitionLogException if the log is closed or failed
     * @throws IllegalArgumentException if the range is not committed to object storage
     */
    public RangeRewrite rewrite(long start, long end, long maxObjectBytes) {
        PartitionLogException unusable = log.unusable();
        if (unusable != null) {
            throw unusable;
        }
        return log.store().rewriteRange(log.records(), start, end, maxObjectBytes);
    }

    /**
     * Commits a rewrite whose batches are all written (see the class comment) and records that the
     * log is compacted below {@code cleanedUpTo}. Blocks the calling thread (the cleaner's) until
     * the new data is in force and checkpointed.
     *
     * @param index the compacted range's time index, built from the batches written
     * @param emptiedAborts aborted transactions none of whose records is left in the log: once the
     *     new data is in force, read_committed fetches no longer list them (the next full
     *     checkpoint records it; a crash before it only leaves them listed, which is harmless)
     * @throws PartitionLogException if the log closed or failed meanwhile (the old data stays in force)
     * @throws RuntimeException the metadata rejection (a newer owner: {@code FENCED}) or storage
     *     failure that stopped the commit; the old data stays in force
     */
    public void commit(RangeRewrite rewrite, CompactedIndex index, long cleanedUpTo, List<AbortedTxn> emptiedAborts) {
        long end = rewrite.endOffset();
        if (index.endOffset() != end) {
            throw new IllegalArgumentException("the compacted index ends at " + index.endOffset() + ", the rewrite at "
                    + end);
        }
        rewrite.finish();
        CompletableFuture<Void> marked;
        synchronized (log.lock()) {
            PartitionLogException unusable = log.unusable();
            if (unusable != null) {
                rewrite.abort();
                throw unusable;
            }
            log.cleanerState().pendingEnd = end;
            marked = log.checkpointLocked(false);
        }
        boolean committed = false;
        try {
            await(marked);
            await(rewrite.commit());
            committed = true;
        } finally {
            CompletableFuture<Void> checkpointed = null;
            synchronized (log.lock()) {
                CleanerState cleaner = log.cleanerState();
                cleaner.pendingEnd = -1;
                if (committed) {
                    log.index().replaceHead(index.index(), end);
                    log.index().truncateHead(log.logStartOffset());
                    log.txns().forget(emptiedAborts);
                    cleaner.cleanedUpTo = Math.max(cleaner.cleanedUpTo, cleanedUpTo);
                    if (log.unusable() == null) {
                        checkpointed = log.checkpointLocked(true);
                    }
                }
            }
            if (!committed) {
                rewrite.abort();
            } else if (checkpointed != null) {
                await(checkpointed);
            }
        }
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while committing a compaction");
        } catch (ExecutionException e) {
            Throwable cause = StoredRecords.unwrap(e.getCause());
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }
}
