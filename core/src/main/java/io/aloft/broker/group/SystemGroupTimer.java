package io.aloft.broker.group;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link GroupTimer}: wall-clock time and one named scheduler thread
 * ({@code aloft-group-timer}). Thread-safe. Cancelled tasks are removed from the queue at once,
 * because every heartbeat cancels and re-arms a session timer and the queue would otherwise fill
 * with dead entries.
 */
public final class SystemGroupTimer implements GroupTimer, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SystemGroupTimer.class);

    private final ScheduledThreadPoolExecutor executor;

    public SystemGroupTimer() {
        this(r -> {
            Thread t = new Thread(r, "aloft-group-timer");
            t.setDaemon(true);
            return t;
        });
    }

    /** With the broker's thread factory (its name and uncaught-exception handler). */
    public SystemGroupTimer(java.util.concurrent.ThreadFactory threads) {
        executor = new ScheduledThreadPoolExecutor(1, threads);
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nowMs() {
        return System.currentTimeMillis();
    }

    @Override
    public Scheduled schedule(long delayMs, Runnable task) {
        ScheduledFuture<?> f = executor.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // A failing timeout must not kill the only timer thread: every group depends on it.
                LOG.error("group timer task failed", e);
            }
        }, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
