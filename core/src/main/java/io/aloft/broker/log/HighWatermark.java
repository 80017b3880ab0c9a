package io.aloft.broker.log;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A partition's high watermark (the offset past the last durable record) and the fetches waiting
 * for it to move. A waiting fetch registers one wake-up ({@link #wakeOn}); the next move (or
 * {@link #wakeAll}) runs and forgets them all, and a fetch woken elsewhere or by its deadline
 * cancels its registration, so the waiters held are those of fetches waiting now — one entry each,
 * however long the partition stays idle.
 *
 * <p>Thread-safe: moves and registrations happen under {@code lock}, reads of the value need none.
 * Moves come from the records stream's acknowledgement thread (appends completing in offset order)
 * and wake-ups run there, outside the lock; registrations from any thread (fetches).
 */
final class HighWatermark {
    private final Object lock = new Object();
    /** Written under lock. */
    private volatile long value;
    /** Registered wake-ups that have not run or been cancelled; guarded by lock. */
    private Set<Runnable> waiters = new HashSet<>();

    HighWatermark(long initial) {
        this.value = initial;
    }

    long get() {
        return value;
    }

    /** Moves the watermark up to {@code end} (never down) and wakes the waiters if it moved. */
    void advanceTo(long end) {
        Set<Runnable> woken;
        synchronized (lock) {
            if (end <= value) {
                return;
            }
            value = end;
            woken = takeWaiters();
        }
        woken.forEach(Runnable::run);
    }

    /** Wakes every waiter (the log closed or failed): each checks again and returns. */
    void wakeAll() {
        Set<Runnable> woken;
        synchronized (lock) {
            woken = takeWaiters();
        }
        woken.forEach(Runnable::run);
    }

    /**
     * Registers {@code wake} to run once when the watermark moves above {@code offset} or
     * everything is woken.
     *
     * @return false, registering nothing, if the watermark is already above or {@code stopped} holds
     */
    boolean wakeOn(long offset, BooleanSupplier stopped, Runnable wake) {
        synchronized (lock) {
            if (value > offset || stopped.getAsBoolean()) {
                return false;
            }
            waiters.add(wake);
            return true;
        }
    }

    /** Removes a registration that has not run; nothing if it has. */
    void cancel(Runnable wake) {
        synchronized (lock) {
            waiters.remove(wake);
        }
    }

    int waiting() {
        synchronized (lock) {
            return waiters.size();
        }
    }

    /** Completes once the watermark is above {@code offset} (at once if it already is) or {@code stopped} holds. */
    CompletableFuture<Void> await(long offset, BooleanSupplier stopped) {
        CompletableFuture<Void> wait = new CompletableFuture<>();
        Runnable wake = () -> wait.complete(null);
        if (!wakeOn(offset, stopped, wake)) {
            return CompletableFuture.completedFuture(null);
        }
        wait.whenComplete((v, e) -> cancel(wake));
        return wait;
    }

    /** The waiters, replaced by an empty set: they run outside the lock. */
    private Set<Runnable> takeWaiters() {
        if (waiters.isEmpty()) {
            return Set.of();
        }
        Set<Runnable> taken = waiters;
        waiters = new HashSet<>();
        return taken;
    }
}
