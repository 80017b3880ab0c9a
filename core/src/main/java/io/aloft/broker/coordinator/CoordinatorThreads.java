package io.aloft.broker.coordinator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Which thread runs each shard. A partition is always served by the same thread, and every event
 * of a shard (operations, append completions, timers, load and unload) runs there one at a time in
 * submission order: that is what lets shards hold plain state. Thread-safe.
 */
public interface CoordinatorThreads extends AutoCloseable {

    /** The executor of {@code partition}'s shard; always the same one for a partition. */
    Executor executorFor(int partition);

    /** Stops the threads; events still queued are dropped. */
    @Override
    void close();

    /**
     * {@code threads} single-thread executors; partition p runs on thread {@code p % threads}.
     * Shards sharing a thread interleave their events, never run them at once.
     */
    static CoordinatorThreads fixed(int threads, ThreadFactory factory) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        }
        List<ExecutorService> executors = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            executors.add(Executors.newSingleThreadExecutor(factory));
        }
        return new CoordinatorThreads() {
            @Override
            public Executor executorFor(int partition) {
                return executors.get(Math.floorMod(partition, threads));
            }

            @Override
            public void close() {
                executors.forEach(ExecutorService::shutdown);
                for (ExecutorService e : executors) {
                    try {
                        if (!e.awaitTermination(10, TimeUnit.SECONDS)) {
                            e.shutdownNow();
                        }
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        e.shutdownNow();
                    }
                }
            }
        };
    }

    /**
     * No threads of its own: a submitted event runs on the submitting thread, after the events
     * already queued, unless another thread is running events at that moment (then that thread runs
     * it, and the submitter returns at once). All partitions share the one queue. For tests that
     * drive a coordinator from one thread and want its answers on return, with an in-memory log;
     * with a real partition log, appends would complete on the store's threads and run shard events
     * there.
     */
    static CoordinatorThreads callerRuns() {
        return new CallerRuns();
    }

    /** See {@link #callerRuns()}. Thread-safe: the queue is guarded by the instance's monitor. */
    final class CallerRuns implements CoordinatorThreads, Executor {
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean running;

        private CallerRuns() {
        }

        @Override
        public Executor executorFor(int partition) {
            return this;
        }

        @Override
        public void execute(Runnable task) {
            synchronized (this) {
                queue.add(task);
                if (running) {
                    return;
                }
                running = true;
            }
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = queue.poll();
                    if (next == null) {
                        running = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException | Error e) {
                    synchronized (this) {
                        running = false; // let a later submitter drain what is left
                    }
                    throw e;
                }
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                queue.clear();
            }
        }
    }
}
