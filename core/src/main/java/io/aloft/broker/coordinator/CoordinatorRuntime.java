package io.aloft.broker.coordinator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a coordinator as shards: one {@link CoordinatorShard} per partition of its internal topic
 * that this broker leads, each owned by one thread ({@link CoordinatorThreads}), so shard state
 * needs no locks. Kafka's newer coordinator model; every coordinator (classic groups today; KIP-848
 * groups, transactions, share groups next) runs on an instance of this class.
 *
 * <p>A shard's life: {@link #load} creates it, replays its partition through
 * {@link CoordinatorShard#replay} on the calling thread, then hands it to its thread, which calls
 * {@link CoordinatorShard#onLoaded} and serves; {@link #unload} (the partition moved, or the broker
 * stops) runs {@link CoordinatorShard#onUnloaded} on the shard's thread and cancels its timers.
 * A broker follows leadership of the internal topic ({@link CoordinatorTopic}) and loads and unloads
 * shards as partitions come and go: a shard moves when its partition moves.
 *
 * <p>Everything that touches a shard is an event on its thread, run in submission order:
 * {@link #write} and {@link #read} operations, the completion of an append (the
 * {@link CoordinatorResult.AfterAppend} steps, then the response), and timers
 * ({@link ShardContext#schedule}). A write's records are replayed into the shard at once and go to
 * the {@link CoordinatorLog} as one append; other events of the shard run while it is in flight,
 * and its completion comes back as an event, in append order. An append that fails after its
 * records were replayed unloads the shard, to be loaded again from the log.
 *
 * <p>Errors: an operation on a partition this broker does not serve fails with
 * {@link NotCoordinatorException}, one that is still loading with
 * {@link CoordinatorLoadInProgressException} (Kafka's exceptions, so callers map them to error codes
 * at one place); an exception thrown by the operation, or the append's failure, fails its future.
 *
 * <p>Thread-safe: the shard table is concurrent; each shard's state is confined to its thread.
 *
 * @param <S> the shard type
 * @param <R> the record type of the internal topic
 */
public final class CoordinatorRuntime<S extends CoordinatorShard<R>, R> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRuntime.class);

    /** Makes the shard of one partition; called on the loading thread. */
    @FunctionalInterface
    public interface ShardFactory<S, R> {
        S create(ShardContext<R> context);
    }

    /** Where a partition stands on this broker. */
    public enum Status {
        /** Not served here: operations get NOT_COORDINATOR. */
        NOT_SERVED,
        /** Replaying its records: operations get COORDINATOR_LOAD_IN_PROGRESS. */
        LOADING,
        /** Serving operations. */
        ACTIVE
    }

    private final String name;
    private final CoordinatorLog<R> log;
    private final CoordinatorTimer timer;
    private final CoordinatorThreads threads;
    private final ShardFactory<S, R> factory;
    private final ConcurrentHashMap<Integer, Shard> shards = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param name the coordinator's name, for logs ("group")
     * @param threads owned by the caller, who closes them after this runtime
     * @param timer owned by the caller, likewise
     */
    public CoordinatorRuntime(String name, CoordinatorLog<R> log, CoordinatorTimer timer, CoordinatorThreads threads,
            ShardFactory<S, R> factory) {
        this.name = name;
        this.log = log;
        this.timer = timer;
        this.threads = threads;
        this.factory = factory;
    }

    // ---- operations -------------------------------------------------------------------------

    /**
     * Runs {@code operation} on the partition's shard; its records are appended and the future
     * completes with its response once they are durable (at once if there are none).
     *
     * @param operationName for logs
     */
    public <T> CompletableFuture<T> write(String operationName, int partition,
            Function<S, CoordinatorResult<T, R>> operation) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Shard s = servingShard(partition, future);
        if (s != null) {
            s.submit(future, () -> {
                if (!s.serving()) {
                    future.completeExceptionally(notCoordinator(partition));
                    return;
                }
                CoordinatorResult<T, R> result;
                try {
                    result = operation.apply(s.shard);
                } catch (RuntimeException e) {
                    LOG.debug("{} coordinator: {} on partition {} failed", name, operationName, partition, e);
                    future.completeExceptionally(e);
                    return;
                }
                s.apply(operationName, result, future);
            });
        }
        return future;
    }

    /** Runs {@code reader} on the partition's shard and completes with what it returns. */
    public <T> CompletableFuture<T> read(String operationName, int partition, Function<S, T> reader) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Shard s = servingShard(partition, future);
        if (s != null) {
            s.submit(future, () -> {
                if (!s.serving()) {
                    future.completeExceptionally(notCoordinator(partition));
                    return;
                }
                try {
                    future.complete(reader.apply(s.shard));
                } catch (RuntimeException e) {
                    LOG.debug("{} coordinator: {} on partition {} failed", name, operationName, partition, e);
                    future.completeExceptionally(e);
                }
            });
        }
        return future;
    }

    /** Runs {@code reader} on every shard being served, each on its own thread; in partition order. */
    public <T> List<CompletableFuture<T>> readAll(String operationName, Function<S, T> reader) {
        List<CompletableFuture<T>> out = new ArrayList<>();
        for (int p : new java.util.TreeSet<>(shards.keySet())) {
            Shard s = shards.get(p);
            if (s != null && s.state == Status.ACTIVE) {
                out.add(read(operationName, p, reader));
            }
        }
        return out;
    }

    /** Where {@code partition} stands on this broker. */
    public Status status(int partition) {
        Shard s = shards.get(partition);
        return s == null ? Status.NOT_SERVED : s.state;
    }

    /** Whether any partition is still loading. */
    public boolean anyLoading() {
        return shards.values().stream().anyMatch(s -> s.state == Status.LOADING);
    }

    private <T> Shard servingShard(int partition, CompletableFuture<T> future) {
        Shard s = shards.get(partition);
        if (s == null || s.state == Status.NOT_SERVED) {
            future.completeExceptionally(notCoordinator(partition));
            return null;
        }
        if (s.state == Status.LOADING) {
            future.completeExceptionally(new CoordinatorLoadInProgressException(name + " coordinator partition "
                    + partition + " is loading"));
            return null;
        }
        return s;
    }

    private NotCoordinatorException notCoordinator(int partition) {
        return new NotCoordinatorException("this broker does not serve " + name + " coordinator partition "
                + partition);
    }

    // ---- loading and unloading ----------------------------------------------------------------

    /**
     * Loads {@code partition}: replays its records into a new shard on the calling thread (which
     * may block; never a network thread), then starts serving it on its thread; returns once it
     * serves. Loading a partition that is loaded or loading does nothing.
     *
     * @throws RuntimeException what the log or the shard threw while replaying; the partition stays
     *     unserved and may be loaded again
     */
    public void load(int partition) {
        if (closed) {
            throw new IllegalStateException(name + " coordinator is closed");
        }
        Shard s = new Shard(partition, threads.executorFor(partition));
        if (shards.putIfAbsent(partition, s) != null) {
            return;
        }
        long start = System.nanoTime();
        S shard;
        int[] records = new int[1];
        try {
            shard = factory.create(s);
            log.replay(partition, r -> {
                shard.replay(r);
                records[0]++;
            });
        } catch (RuntimeException | Error e) {
            s.state = Status.NOT_SERVED;
            shards.remove(partition, s);
            throw e;
        }
        CompletableFuture<Void> activated = new CompletableFuture<>();
        boolean handed = s.submit(activated, () -> {
            try {
                if (s.state == Status.LOADING && shards.get(partition) == s) {
                    s.shard = shard;
                    s.state = Status.ACTIVE;
                    shard.onLoaded();
                }
                activated.complete(null);
            } catch (RuntimeException e) {
                s.unloadHere();
                activated.completeExceptionally(e);
            }
        });
        if (!handed) {
            s.state = Status.NOT_SERVED;
            shards.remove(partition, s);
        }
        await(activated);
        LOG.info("{} coordinator: partition {} loaded, {} records replayed in {} ms", name, partition, records[0],
                (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Stops serving {@code partition}: waits for the operations queued before, then unloads the shard
     * on its thread. Returns once done; unloading a partition not served does nothing.
     */
    public void unload(int partition) {
        Shard s = shards.get(partition);
        if (s == null) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!s.submit(done, () -> {
            s.unloadHere();
            done.complete(null);
        })) {
            s.unloadHere(); // its thread is gone (broker stopping): nothing else runs on the shard now
            return;
        }
        await(done);
        LOG.info("{} coordinator: partition {} unloaded", name, partition);
    }

    /** Unloads every shard. The threads and the timer are the caller's to close afterwards. */
    @Override
    public void close() {
        closed = true;
        for (int p : List.copyOf(shards.keySet())) {
            unload(p);
        }
    }

    private static void await(CompletableFuture<Void> f) {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * One partition's shard with its thread and timers. {@link #state} is read from any thread;
     * everything else is confined to the shard's thread once loaded.
     */
    private final class Shard implements ShardContext<R> {
        final int partition;
        final Executor executor;
        volatile Status state = Status.LOADING;
        /** Set on the shard's thread when loading finishes. */
        S shard;
        final Set<ShardTimer> timers = new HashSet<>();
        Shard(int partition, Executor executor) {
            this.partition = partition;
            this.executor = executor;
        }

        boolean serving() {
            return state == Status.ACTIVE && shards.get(partition) == this;
        }

        /**
         * Runs {@code event} on the shard's thread and returns true; if that thread is gone (the broker
         * is stopping), fails {@code future} with NOT_COORDINATOR and returns false.
         */
        boolean submit(CompletableFuture<?> future, Runnable event) {
            try {
                executor.execute(event);
                return true;
            } catch (RejectedExecutionException e) {
                future.completeExceptionally(notCoordinator(partition));
                return false;
            }
        }

        /**
         * Applies a result on this thread: replays its records now if it asks for it (the next
         * operation sees them), then appends them.
         */
        <T> void apply(String operationName, CoordinatorResult<T, R> result, CompletableFuture<T> future) {
            if (result.replayRecords()) {
                try {
                    result.records().forEach(shard::replay);
                } catch (RuntimeException e) {
                    // A bug: the records are half applied and none written. Start over from the log.
                    LOG.error("{} coordinator: replaying {} on partition {} failed; unloading it to reload from "
                            + "its log", name, operationName, partition, e);
                    future.completeExceptionally(e);
                    unloadHere();
                    return;
                }
            }
            persist(operationName, result, future);
        }

        /** Appends a result's records, then completes its future and runs its steps (on this thread). */
        <T> void persist(String operationName, CoordinatorResult<T, R> result, CompletableFuture<T> future) {
            if (result.records().isEmpty()) {
                afterAppend(operationName, result, null, future);
                return;
            }
            CompletableFuture<Void> append;
            try {
                append = log.append(partition, result.records(), result.guard());
            } catch (RuntimeException e) {
                append = CompletableFuture.failedFuture(e);
            }
            append.whenComplete((v, error) -> {
                Throwable failure = error == null ? null : unwrap(error);
                if (!submit(new CompletableFuture<>(), () -> afterAppend(operationName, result, failure, future))) {
                    // The shard's thread is gone (broker stopping): still tell the caller how the write went.
                    afterAppend(operationName, result, failure, future);
                }
            });
        }

        private <T> void afterAppend(String operationName, CoordinatorResult<T, R> result, Throwable failure,
                CompletableFuture<T> future) {
            boolean serving = serving();
            if (failure != null) {
                LOG.debug("{} coordinator: {} on partition {} could not be written", name, operationName, partition,
                        failure);
            }
            if (failure != null && result.replayRecords() && serving) {
                // The records were applied when written but are not in the log: the state is ahead of
                // it. Unload; the partition's CoordinatorTopic loads it again from the log.
                LOG.warn("{} coordinator: {} on partition {} could not be written ({}); unloading the partition to "
                        + "reload it from its log", name, operationName, partition, failure.toString());
                unloadHere();
                serving = false;
            }
            CoordinatorResult.Builder<R> next = CoordinatorResult.builder();
            try {
                for (CoordinatorResult.AfterAppend<R> step : result.afterAppend()) {
                    step.run(failure, next);
                }
            } catch (RuntimeException e) {
                // A bug in the coordinator, not in the request: answer the caller instead of leaving it waiting.
                LOG.error("{} coordinator: completing {} on partition {} failed", name, operationName, partition, e);
                future.completeExceptionally(e);
                return;
            }
            if (failure == null) {
                future.complete(result.response());
            } else {
                future.completeExceptionally(failure);
            }
            if (!next.isEmpty()) {
                if (serving) {
                    apply(operationName, next.build(null), new CompletableFuture<>());
                } else {
                    LOG.debug("{} coordinator: partition {} unloaded; {} follow-up dropped", name, partition,
                            operationName);
                }
            }
        }

        /** On the shard's thread (or with it gone): stops serving, cancels timers, tells the shard. */
        void unloadHere() {
            Status was = state;
            state = Status.NOT_SERVED;
            shards.remove(partition, this);
            for (ShardTimer t : List.copyOf(timers)) {
                t.cancel();
            }
            if (was == Status.ACTIVE && shard != null) {
                try {
                    shard.onUnloaded();
                } catch (RuntimeException e) {
                    // A bug in the coordinator; the shard is gone either way, and the partition's next
                    // owner rebuilds its state from the log.
                    LOG.error("{} coordinator: unloading partition {} failed", name, partition, e);
                }
            }
        }

        // ---- ShardContext ----

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public long nowMs() {
            return timer.nowMs();
        }

        @Override
        public CoordinatorTimer.Scheduled schedule(long delayMs, String name,
                Supplier<CoordinatorResult<Void, R>> operation) {
            if (state == Status.LOADING) {
                throw new IllegalStateException("timers start once the shard serves (in onLoaded or an operation)");
            }
            if (state != Status.ACTIVE) {
                return () -> { }; // unloaded meanwhile (a late append completion): nothing will run here again
            }
            ShardTimer t = new ShardTimer(name, operation);
            timers.add(t);
            t.scheduled = timer.schedule(delayMs, () -> submit(new CompletableFuture<>(), t::fire));
            return t;
        }

        /** A timer of this shard; its fields are confined to the shard's thread. */
        private final class ShardTimer implements CoordinatorTimer.Scheduled {
            final String name;
            final Supplier<CoordinatorResult<Void, R>> operation;
            CoordinatorTimer.Scheduled scheduled;
            boolean cancelled;

            ShardTimer(String name, Supplier<CoordinatorResult<Void, R>> operation) {
                this.name = name;
                this.operation = operation;
            }

            void fire() {
                if (cancelled || !serving()) {
                    return;
                }
                timers.remove(this);
                CoordinatorResult<Void, R> result;
                try {
                    result = operation.get();
                } catch (RuntimeException e) {
                    // A bug in the coordinator: this timer's work is lost, the shard keeps serving.
                    LOG.error("{} coordinator: timer {} of partition {} failed", CoordinatorRuntime.this.name, name,
                            partition, e);
                    return;
                }
                apply(name, result, new CompletableFuture<>());
            }

            @Override
            public void cancel() {
                cancelled = true;
                timers.remove(this);
                if (scheduled != null) {
                    scheduled.cancel();
                }
            }
        }
    }
}
