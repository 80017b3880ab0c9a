package io.aloft.broker.lifecycle;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A scheduler whose every task is critical: a task that throws, one-shot or periodic, is reported
 * to the uncaught-exception handler (the broker's {@link FatalFailureHandler}) instead of being
 * kept in a future nobody reads. A plain {@link ScheduledThreadPoolExecutor} would keep the
 * exception there and, for a periodic task, silently cancel every later run.
 *
 * <p>Tasks whose failure the submitter handles (through the returned future) do not belong here:
 * catch inside the task what is expected, and let only the unexpected escape. Failures after
 * {@link #shutdown()} are not reported: tasks interrupted by a shutdown may throw.
 *
 * <p>Thread-safe. Cancelled tasks are removed from the queue at once.
 */
public final class CriticalScheduler extends ScheduledThreadPoolExecutor {
    private final Thread.UncaughtExceptionHandler handler;

    /**
     * @param name the threads' name prefix ({@code name-1}, ...); the threads are daemons
     * @param handler told of every task that throws, on the task's thread
     */
    public CriticalScheduler(String name, int threads, Thread.UncaughtExceptionHandler handler) {
        super(threads, new NamedThreadFactory(name, true, handler));
        this.handler = handler;
        setRemoveOnCancelPolicy(true);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
        super.afterExecute(task, thrown);
        Throwable failure = thrown;
        // Scheduled tasks are futures: what they threw is inside, and the future is done only if the
        // task completed (one-shot) or failed (periodic: a periodic future never completes normally).
        if (failure == null && task instanceof Future<?> f && f.isDone()) {
            try {
                f.get();
            } catch (CancellationException e) {
                return; // cancelled, not failed
            } catch (ExecutionException e) {
                failure = e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure != null && !isShutdown()) {
            handler.uncaughtException(Thread.currentThread(), failure);
        }
    }
}
