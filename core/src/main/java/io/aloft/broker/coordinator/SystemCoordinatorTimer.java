package io.aloft.broker.coordinator;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link CoordinatorTimer}: wall-clock time and one scheduler thread. Its tasks
 * only hand work to shard threads, so one thread serves every coordinator. Cancelled tasks leave
 * the queue at once, because every heartbeat cancels and re-arms a session timer and the queue
 * would otherwise fill with dead entries. Thread-safe.
 */
public final class SystemCoordinatorTimer implements CoordinatorTimer, AutoCloseable {

    private final ScheduledThreadPoolExecutor executor;

    public SystemCoordinatorTimer(ThreadFactory threads) {
        executor = new ScheduledThreadPoolExecutor(1, threads);
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nowMs() {
        return System.currentTimeMillis();
    }

    @Override
    public Scheduled schedule(long delayMs, Runnable task) {
        ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
