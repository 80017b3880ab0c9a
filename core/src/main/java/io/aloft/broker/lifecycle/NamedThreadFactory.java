package io.aloft.broker.lifecycle;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the broker's executors: named {@code name-1}, {@code name-2}, ..., daemon or not,
 * and each given the same uncaught-exception handler, normally the broker's
 * {@link FatalFailureHandler}, so a long-lived thread that dies stops the broker instead of
 * vanishing. Use it for every thread the broker owns (executors, coordinator shards, timers).
 *
 * <p>Note that an executor catches what its tasks throw before the thread could see it: a
 * {@code ScheduledExecutorService} keeps it in the task's future (and cancels a periodic task's
 * later runs), so use {@link CriticalScheduler} for scheduled work that must not fail quietly.
 * A plain {@code ThreadPoolExecutor.execute} task that throws does reach the handler.
 *
 * <p>Thread-safe.
 */
public final class NamedThreadFactory implements ThreadFactory {
    private final String name;
    private final boolean daemon;
    private final Thread.UncaughtExceptionHandler handler;
    private final AtomicInteger created = new AtomicInteger();

    public NamedThreadFactory(String name, boolean daemon, Thread.UncaughtExceptionHandler handler) {
        this.name = Objects.requireNonNull(name, "name");
        this.daemon = daemon;
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread t = new Thread(task, name + "-" + created.incrementAndGet());
        t.setDaemon(daemon);
        t.setUncaughtExceptionHandler(handler);
        return t;
    }

    @Override
    public String toString() {
        return "threads " + name + "-*";
    }
}
