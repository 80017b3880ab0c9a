package io.aloft.stream.compaction;

import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts one node's objects in the background and deletes released objects.
 *
 * <p>A round, run every {@value CompactionConfig#INTERVAL_CONFIG} after {@link #start()} or on demand
 * by {@link #runOnce()}, does in order:
 * <ol>
 *   <li>merges this node's oldest run of consecutive small stream-set objects into one stream-set
 *       object (splitting big streams into stream objects);</li>
 *   <li>for each stream the stream-id supplier names, merges a contiguous run of its small stream
 *       objects into one;</li>
 *   <li>deletes objects marked for deletion at least {@value CompactionConfig#DELETE_DELAY_CONFIG}
 *       ago.</li>
 * </ol>
 * The merges together read at most {@value CompactionConfig#MAX_MERGE_CONFIG} per round. A step that
 * fails is logged at WARN and retried next round; a commit that metadata rejects (a concurrent trim
 * released an input, a new owner, an expired prepare) abandons the merge's output, which metadata
 * then deletes via the prepare ttl, and is logged at INFO. One INFO line summarises each round that
 * did something. See {@link Merger} and {@link ObjectDeleter} for the details.
 *
 * <p>An {@link Error} in a scheduled round is not retried quietly: it goes to the thread's
 * uncaught-exception handler (given to the constructor; by default one that logs), and the
 * schedule goes on. A runtime exception only fails its step, as above.
 *
 * <p><b>Thread-safety:</b> thread-safe. All compaction work is confined to one thread,
 * {@code aloft-compaction}, which blocks on storage and metadata (it does nothing else), so rounds
 * never overlap.
 */
public final class CompactionManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CompactionManager.class);

    private static final long CLOSE_WAIT_MS = 10_000;

    private final CompactionConfig config;
    private final Supplier<? extends Collection<Long>> streamIds;
    private final Merger merger;
    private final ObjectDeleter deleter;
    private final ScheduledExecutorService executor;
    private final Set<CompletableFuture<CompactionRound>> pending = ConcurrentHashMap.newKeySet();
    private final Object stateLock = new Object();
    private final CompactionStats stats = new CompactionStats();
    // Guarded by stateLock.
    private boolean started;
    // Guarded by stateLock.
    private boolean closed;

    /**
     * A manager that does nothing until {@link #start()} or {@link #runOnce()}.
     *
     * @param storage where objects are read, written and deleted; not closed by this manager
     * @param metadata the stream metadata
     * @param streamIds the streams whose stream objects to merge, asked once per round (the streams
     *     this node has open); called on the compaction thread
     * @param clock wall-clock milliseconds (injected so tests control time)
     */
    public CompactionManager(CompactionConfig config, ObjectStorage storage, StreamMetadata metadata,
            Supplier<? extends Collection<Long>> streamIds, LongSupplier clock) {
        this(config, storage, metadata, streamIds, clock, (thread, error) -> log.error(
                "Uncaught exception on compaction thread {}", thread.getName(), error));
    }

    /**
     * As above, with the handler set on the compaction thread and told of an {@link Error} in a
     * scheduled round.
     */
    public CompactionManager(CompactionConfig config, ObjectStorage storage, StreamMetadata metadata,
            Supplier<? extends Collection<Long>> streamIds, LongSupplier clock,
            Thread.UncaughtExceptionHandler uncaughtExceptionHandler) {
        this.config = config;
        this.streamIds = streamIds;
        this.merger = new Merger(config, storage, metadata, clock);
        this.deleter = new ObjectDeleter(metadata, storage, clock, config.deleteDelayMs());
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aloft-compaction");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaughtExceptionHandler);
            return t;
        });
    }

    /**
     * Starts the periodic rounds, the first one interval from now.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        synchronized (stateLock) {
            if (closed || started) {
                throw new IllegalStateException("compaction manager of node " + config.nodeId() + " is already "
                        + (closed ? "closed" : "started"));
            }
            started = true;
            executor.scheduleWithFixedDelay(this::scheduledRound, config.intervalMs(), config.intervalMs(),
                    TimeUnit.MILLISECONDS);
        }
        log.info("Compaction of node {} started: {}", config.nodeId(), config);
    }

    /**
     * Runs one round on the compaction thread, after any round in progress.
     *
     * @return what the round did; fails with {@link IllegalStateException} if the manager is
     *     closed, or with {@link CancellationException} if it closes before the round ends
     */
    public CompletableFuture<CompactionRound> runOnce() {
        CompletableFuture<CompactionRound> result = new CompletableFuture<>();
        synchronized (stateLock) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("compaction manager is closed"));
            }
            pending.add(result);
            try {
                executor.execute(() -> {
                    try {
                        result.complete(round());
                    } catch (Throwable t) {
                        result.completeExceptionally(t);
                    } finally {
                        pending.remove(result);
                    }
                });
            } catch (RejectedExecutionException e) {
                pending.remove(result);
                return CompletableFuture.failedFuture(new IllegalStateException("compaction manager is closed", e));
            }
        }
        return result;
    }

    /**
     * Stops: interrupts a round in progress (its output is abandoned, like a rejected commit's) and
     * waits up to {@value #CLOSE_WAIT_MS} ms for the thread to end. Idempotent.
     */
    @Override
    public void close() {
        synchronized (stateLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                log.warn("Compaction thread of node {} did not stop within {} ms", config.nodeId(), CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (CompletableFuture<CompactionRound> f : pending) {
            f.completeExceptionally(new CancellationException("compaction manager closed"));
        }
        pending.clear();
        log.info("Compaction of node {} stopped", config.nodeId());
    }

    /** Counters of the rounds run so far. */
    public CompactionStats stats() {
        return stats;
    }

    /** Test hook: runs on the compaction thread after a merge's output is written, before its commit. */
    void beforeCommit(Runnable hook) {
        merger.beforeCommit(hook);
    }

    private void scheduledRound() {
        try {
            round();
        } catch (RuntimeException e) {
            // Keep the schedule alive: the next round retries.
            log.warn("Compaction round of node {} failed; retrying next round", config.nodeId(), e);
        } catch (Error e) {
            // Thrown out of a scheduled task it would only cancel the schedule, unseen: report it.
            Thread self = Thread.currentThread();
            self.getUncaughtExceptionHandler().uncaughtException(self, e);
        }
    }

    private CompactionRound round() {
        List<Long> compacted = new ArrayList<>();
        List<Long> created = new ArrayList<>();
        List<Long> abandoned = new ArrayList<>();
        long budget = config.maxMergeBytes();
        merger.startRound();
        try {
            budget -= record(merger.mergeStreamSetObjects(budget), compacted, created, abandoned);
        } catch (CancellationException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Merging stream-set objects of node {} failed; retrying next round", config.nodeId(), e);
        }
        for (long streamId : streamIds.get()) {
            if (budget < 2) {
                break;
            }
            try {
                budget -= record(merger.mergeStreamObjects(streamId, budget), compacted, created, abandoned);
            } catch (CancellationException e) {
                throw e;
            } catch (RuntimeException e) {
                log.warn("Merging stream objects of stream {} failed; retrying next round", streamId, e);
            }
        }
        List<Long> deleted = List.of();
        try {
            deleted = deleter.deleteDue();
        } catch (CancellationException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Deleting released objects failed; retrying next round", e);
        }
        stats.recordSeen(merger.seenObjects(), merger.seenBytes());
        stats.recordRound(deleted.size());
        CompactionRound done = new CompactionRound(compacted, created, abandoned, deleted);
        if (done.didSomething()) {
            log.info("Compaction round of node {}: merged {} objects {} into {}, abandoned {}, deleted {} objects",
                    config.nodeId(), compacted.size(), compacted, created, abandoned, deleted.size());
        }
        return done;
    }

    /** Adds a merge's outcome to the round's lists and the stats; returns the bytes it read. */
    private long record(Merger.Outcome outcome, List<Long> compacted, List<Long> created,
            List<Long> abandoned) {
        if (outcome == null) {
            return 0;
        }
        stats.recordMerge(outcome);
        if (outcome.committed()) {
            compacted.addAll(outcome.inputIds());
            created.addAll(outcome.outputIds());
        } else {
            abandoned.addAll(outcome.outputIds());
        }
        return outcome.bytesRead();
    }
}
