package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorTimer;
import java.util.PriorityQueue;

/**
 * A {@link CoordinatorTimer} whose time moves only when a test calls {@link #advance}; due tasks
 * then run on the test's thread, in due order, with the clock at each task's due time. Thread-safe.
 */
final class ManualTxnTimer implements CoordinatorTimer {

    private static final class Task implements Scheduled {
        final long due;
        final long seq;
        final Runnable body;
        volatile boolean cancelled;

        Task(long due, long seq, Runnable body) {
            this.due = due;
            this.seq = seq;
            this.body = body;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) ->
            a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now = 1_000_000L;
    private long seq;

    @Override
    public synchronized long nowMs() {
        return now;
    }

    @Override
    public synchronized Scheduled schedule(long delayMs, Runnable task) {
        Task t = new Task(now + Math.max(0, delayMs), seq++, task);
        queue.add(t);
        return t;
    }

    /** Moves time forward by {@code ms}, running every task that falls due on the way. */
    void advance(long ms) {
        long target;
        synchronized (this) {
            target = now + ms;
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due > target) {
                    now = target;
                    return;
                }
                queue.poll();
                now = next.due;
            }
            if (!next.cancelled) {
                next.body.run();
            }
        }
    }
}
