package io.aloft.broker.coordinator;

/**
 * Time and delayed tasks for coordinators (session timeouts, rebalance timeouts, retention).
 * Injected, so tests move time by hand and every timeout is driven by the test. A task only
 * schedules work: the runtime hands it to the shard's thread ({@link ShardContext#schedule}), so
 * a task never touches shard state on the timer's thread. Implementations are thread-safe.
 */
public interface CoordinatorTimer {

    /** Milliseconds on the same clock the tasks are scheduled on. */
    long nowMs();

    /** Runs {@code task} once, about {@code delayMs} from now, unless cancelled first. */
    Scheduled schedule(long delayMs, Runnable task);

    /** A pending task. Cancelling a task that already ran, or ran while cancelling, is harmless. */
    interface Scheduled {
        void cancel();
    }
}
