package io.aloft.broker.group;

/**
 * Time and delayed tasks for the coordinator: session timeouts, rebalance timeouts and the
 * initial-rebalance delay. Injected so tests move time by hand and every timeout is driven by the
 * test. Implementations are thread-safe; tasks must be short (they take one group's lock).
 */
public interface GroupTimer {

    /** Milliseconds on the same clock the tasks are scheduled on. */
    long nowMs();

    /** Runs {@code task} once, about {@code delayMs} from now, unless cancelled first. */
    Scheduled schedule(long delayMs, Runnable task);

    /** A pending task. Cancelling a task that already ran, or ran while cancelling, is harmless. */
    interface Scheduled {
        void cancel();
    }
}
