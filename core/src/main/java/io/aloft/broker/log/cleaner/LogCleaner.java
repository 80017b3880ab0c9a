package io.aloft.broker.log.cleaner;

import io.aloft.broker.log.CleaningPlan;
import io.aloft.broker.log.LogCompaction;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner: compacts the partitions this broker serves whose {@code cleanup.policy}
 * includes {@code compact}.
 *
 * <h2>Threads and budgets</h2>
 * {@code log.cleaner.threads} tasks on the given scheduler (the broker's critical scheduler of
 * their own): each picks the partition most in need ({@link CleanerChoice}) that no other thread
 * is cleaning, cleans it ({@link RangeCleaner}), and picks again until none needs it, then waits
 * {@code log.cleaner.backoff.ms}. A cleaning runs on its thread alone: it blocks that thread on
 * reads, uploads and commits, never a network, stream-store or coordinator thread, so produce
 * and fetch of other partitions go on (the cleaned partition too: appends land above the cleaned
 * range, and readers move to the new data when it commits). Memory: one key map per thread
 * ({@code log.cleaner.dedupe.buffer.size} split between them, allocated at the thread's first
 * cleaning), one read buffer, one batch, one object being uploaded. CPU and I/O: the threads, and
 * {@code log.cleaner.io.max.bytes.per.second} over all of them.
 *
 * <h2>Failures</h2>
 * A cleaning that fails (object storage, a partition closed or moved meanwhile, the controller
 * rejecting the commit) changes nothing; it is logged (WARN, at most once a minute per partition)
 * and the partition is left alone for {@code log.cleaner.backoff.ms}. Anything else a task throws
 * goes to the scheduler's handler (the broker stops).
 *
 * <h2>Feature level</h2>
 * Compaction commits with a command of controller feature level 2; while the cluster's finalized
 * level is below (a cluster upgraded from an older build, not yet raised with
 * {@code scripts/controller.sh features upgrade}), nothing is cleaned, and that is logged once.
 *
 * <p>Thread-safe.
 */
public final class LogCleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);
    private static final long WARN_INTERVAL_MS = 60_000;

    private final CleanerConfig config;
    private final Supplier<Collection<PartitionLog>> logs;
    private final BooleanSupplier allowed;
    private final LongSupplier clock;
    private final ScheduledExecutorService scheduler;
    private final Throttler throttler;
    private final CleanerStats stats = new CleanerStats();
    private final Object lock = new Object();
    /** Partitions a thread is cleaning; guarded by lock. */
    private final Set<TopicPartition> inProgress = new HashSet<>();
    /** Partitions whose last cleaning failed, and until when they are left alone; guarded by lock. */
    private final Map<TopicPartition, Long> backingOff = new HashMap<>();
    /** When each partition's failure was last logged; guarded by lock. */
    private final Map<TopicPartition, Long> lastWarned = new HashMap<>();
    private volatile boolean disallowedLogged;
    private volatile boolean closed;

    /**
     * @param logs the partition logs this broker serves now
     * @param allowed whether compaction may commit (the cluster's finalized feature level allows it)
     * @param clock wall-clock milliseconds (tombstone horizons, lags)
     * @param scheduler runs the cleaner threads' tasks (at least {@code log.cleaner.threads} threads)
     */
    public LogCleaner(CleanerConfig config, Supplier<Collection<PartitionLog>> logs, BooleanSupplier allowed,
            LongSupplier clock, ScheduledExecutorService scheduler) {
        this.config = config;
        this.logs = logs;
        this.allowed = allowed;
        this.clock = clock;
        this.scheduler = scheduler;
        this.throttler = Throttler.of(config.maxBytesPerSecond());
    }

    /** Starts the cleaner threads (nothing when {@code log.cleaner.enable=false}). */
    public void start() {
        if (!config.enabled()) {
            log.info("The log cleaner is disabled ({}=false): compacted topics are not compacted",
                    CleanerConfig.ENABLE_CONFIG);
            return;
        }
        for (int i = 0; i < config.threads(); i++) {
            Worker w = new Worker();
            scheduler.scheduleWithFixedDelay(w::cleanWhileNeeded, config.backoffMs(), Math.max(1, config.backoffMs()),
                    TimeUnit.MILLISECONDS);
        }
    }

    public CleanerStats stats() {
        return stats;
    }

    /**
     * Cleans, on the calling thread, every partition that needs it until none does, and returns
     * what was done (tests and tools; the cleaner threads may clean others meanwhile).
     */
    public List<RangeCleaner.Result> cleanNow() {
        return new Worker().cleanWhileNeeded();
    }

    /** One cleaner thread's state: its key map, allocated at its first cleaning. */
    private final class Worker {
        private RangeCleaner cleaner;

        List<RangeCleaner.Result> cleanWhileNeeded() {
            List<RangeCleaner.Result> done = new ArrayList<>();
            if (closed || !mayCompact()) {
                return done;
            }
            while (!closed && !Thread.currentThread().isInterrupted()) {
                Optional<Claim> claim = claimNext();
                if (claim.isEmpty()) {
                    break;
                }
                try {
                    RangeCleaner.Result r = clean(claim.get());
                    if (r != null) {
                        done.add(r);
                    }
                } finally {
                    release(claim.get().plan().tp());
                }
            }
            return done;
        }

        private RangeCleaner.Result clean(Claim claim) {
            CleaningPlan plan = claim.plan();
            try {
                RangeCleaner.Result r = cleaner().clean(claim.log(), plan);
                stats.cleaned(r);
                log.info("Compacted {} [{}, {}): {} -> {} bytes, {} -> {} records, {} keys, {} bytes read, {} ms{}",
                        plan.tp(), r.start(), r.end(), r.bytesInRange(), r.bytesWritten(), r.recordsIn(),
                        r.recordsOut(), r.keys(), r.bytesRead(), r.nanos() / 1_000_000,
                        r.reachedCleanableEnd() ? "" : "; the key map filled, another pass follows");
                return r;
            } catch (InterruptedException | CancellationException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (PartitionLogException e) {
                // The partition closed or moved meanwhile: expected, nothing changed.
                log.debug("Compaction of {} stopped: {}", plan.tp(), e.getMessage());
                failed(plan.tp(), null);
                return null;
            } catch (RuntimeException e) {
                failed(plan.tp(), e);
                return null;
            }
        }

        private RangeCleaner cleaner() {
            if (cleaner == null) {
                OffsetMap map = new OffsetMap(config.dedupeBufferBytesPerThread(), config.loadFactor());
                stats.mapAllocated(map.memoryBytes());
                cleaner = new RangeCleaner(map, config.ioBufferBytes(), throttler, clock, System::nanoTime);
            }
            return cleaner;
        }
    }

    /** A partition claimed by one thread, with its plan. */
    private record Claim(LogCompaction log, CleaningPlan plan) {
    }

    private boolean mayCompact() {
        if (allowed.getAsBoolean()) {
            return true;
        }
        if (!disallowedLogged) {
            disallowedLogged = true;
            log.warn("Compacted topics are not compacted: the cluster's finalized feature level is below 2, which "
                    + "key compaction needs; raise it with scripts/controller.sh features upgrade --level 2 once "
                    + "every node runs this build");
        }
        return false;
    }

    private Optional<Claim> claimNext() {
        long now = clock.getAsLong();
        Map<TopicPartition, LogCompaction> candidates = new HashMap<>();
        List<CleaningPlan> plans = new ArrayList<>();
        synchronized (lock) {
            backingOff.values().removeIf(until -> until <= now);
        }
        for (PartitionLog pl : logs.get()) {
            if (!pl.config().compact()) {
                continue;
            }
            synchronized (lock) {
                if (inProgress.contains(pl.topicPartition()) || backingOff.containsKey(pl.topicPartition())) {
                    continue;
                }
            }
            CleaningPlan plan = pl.compaction().plan(now);
            plans.add(plan);
            candidates.put(plan.tp(), pl.compaction());
        }
        synchronized (lock) {
            Optional<CleaningPlan> chosen = CleanerChoice.pick(plans.stream()
                    .filter(p -> !inProgress.contains(p.tp())).toList(), now);
            chosen.ifPresent(p -> inProgress.add(p.tp()));
            return chosen.map(p -> new Claim(candidates.get(p.tp()), p));
        }
    }

    private void release(TopicPartition tp) {
        synchronized (lock) {
            inProgress.remove(tp);
        }
    }

    /** Leaves the partition alone for a backoff; {@code e} (null for an expected stop) is logged at WARN, rate-limited. */
    private void failed(TopicPartition tp, RuntimeException e) {
        stats.failed();
        long now = clock.getAsLong();
        boolean warn;
        synchronized (lock) {
            backingOff.put(tp, now + config.backoffMs());
            Long last = lastWarned.get(tp);
            warn = e != null && (last == null || now - last >= WARN_INTERVAL_MS);
            if (warn) {
                lastWarned.put(tp, now);
            }
        }
        if (warn) {
            log.warn("Compacting {} failed; nothing changed, retried in {} ms", tp, config.backoffMs(), e);
        }
    }

    /** Stops the cleaner threads; a cleaning in progress is abandoned, changing nothing. */
    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        try {
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("A log cleaner thread did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
