package io.aloft.broker.coordinator;

import java.util.PriorityQueue;

/**
 * A {@link CoordinatorTimer} whose time moves only when a test calls {@link #advance}; due tasks
 * then run on the test's thread (the runtime's tasks only hand work to shard threads). Thread-safe.
 */
public final class ManualTimer implements CoordinatorTimer {

    private record Task(long due, long seq, Runnable body, boolean[] cancelled) implements Scheduled {
        @Override
        public void cancel() {
            synchronized (cancelled) {
                cancelled[0] = true;
            }
        }
    }

    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) ->
            a.due() != b.due() ? Long.compare(a.due(), b.due()) : Long.compare(a.seq(), b.seq()));
    private long now;
    private long seq;

    ManualTimer() {
        this(1_000L);
    }

    /** A timer whose clock starts at {@code startMs} (other packages' coordinator tests). */
    public ManualTimer(long startMs) {
        this.now = startMs;
    }

    @Override
    public synchronized long nowMs() {
        return now;
    }

    @Override
    public synchronized Scheduled schedule(long delayMs, Runnable task) {
        Task t = new Task(now + Math.max(0, delayMs), seq++, task, new boolean[1]);
        queue.add(t);
        return t;
    }

    /** Moves time forward by {@code ms}, running every task that falls due. */
    public void advance(long ms) {
        long target;
        synchronized (this) {
            target = now + ms;
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due() > target) {
                    now = target;
                    return;
                }
                queue.poll();
                now = next.due();
            }
            boolean cancelled;
            synchronized (next.cancelled()) {
                cancelled = next.cancelled()[0];
            }
            if (!cancelled) {
                next.body().run();
            }
        }
    }
}
