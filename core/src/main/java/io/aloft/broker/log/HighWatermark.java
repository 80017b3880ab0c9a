package io.aloft.broker.log;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongUnaryOperator;

/**
 * A partition's high watermark (the offset past the last durable record) and the fetches waiting
 * for it, or for the last stable offset, to move. A waiting fetch registers one wake-up
 * ({@link #wakeOn}) for the offset it reads from: a read_uncommitted one runs once the high
 * watermark passes it, a read_committed one once the last stable offset does, which can lag the
 * high watermark for as long as a transaction stays open (a wake-up on the high watermark alone
 * would run, find nothing to read, and leave the fetch nothing to wait on). The last stable offset
 * only moves up when the high watermark does (a marker becoming durable), so both are checked on
 * each move. A fetch woken elsewhere or by its deadline cancels its registration, so the waiters
 * held are those of fetches waiting now — one entry each, however long the partition stays idle.
 *
 * <p>Thread-safe: moves and registrations happen under {@code lock}, reads of the value need none.
 * Moves come from the records stream's acknowledgement thread (appends completing in offset order)
 * and wake-ups run there, outside the lock; registrations from any thread (fetches). The last
 * stable offset is asked of {@code stableAt} (the {@link TransactionIndex}, whose own monitor is
 * taken inside this lock and never the other way round).
 */
final class HighWatermark {
    private final Object lock = new Object();
    /** The last stable offset at a given high watermark. */
    private final LongUnaryOperator stableAt;
    /** Written under lock. */
    private volatile long value;
    /** Registered wake-ups that have not run or been cancelled; guarded by lock. */
    private Map<Runnable, Waiter> waiters = new HashMap<>();

    /** What a wake-up waits for: the high watermark (with {@code stable}: the LSO) above {@code offset}. */
    private record Waiter(long offset, boolean stable) {
    }

    HighWatermark(long initial, LongUnaryOperator stableAt) {
        this.value = initial;
        this.stableAt = stableAt;
    }

    long get() {
        return value;
    }

    /** Moves the watermark up to {@code end} (never down) and wakes the waiters whose offset it, or the LSO, passed. */
    void advanceTo(long end) {
        List<Runnable> woken = List.of();
        synchronized (lock) {
            if (end <= value) {
                return;
            }
            value = end;
            if (!waiters.isEmpty()) {
                woken = new ArrayList<>();
                long stable = stableAt.applyAsLong(end);
                for (Iterator<Map.Entry<Runnable, Waiter>> it = waiters.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<Runnable, Waiter> e = it.next();
                    if ((e.getValue().stable() ? stable : end) > e.getValue().offset()) {
                        woken.add(e.getKey());
                        it.remove();
                    }
                }
            }
        }
        woken.forEach(Runnable::run);
    }

    /** Wakes every waiter (the log closed or failed): each checks again and returns. */
    void wakeAll() {
        Map<Runnable, Waiter> woken;
        synchronized (lock) {
            woken = waiters;
            waiters = new HashMap<>();
        }
        woken.keySet().forEach(Runnable::run);
    }

    /**
     * Registers {@code wake} to run once when the watermark (with {@code stable}, the last stable
     * offset) moves above {@code offset}, or everything is woken.
     *
     * @return false, registering nothing, if it is already above or {@code stopped} holds
     */
    boolean wakeOn(long offset, boolean stable, BooleanSupplier stopped, Runnable wake) {
        synchronized (lock) {
            long current = stable ? stableAt.applyAsLong(value) : value;
            if (current > offset || stopped.getAsBoolean()) {
                return false;
            }
            waiters.put(wake, new Waiter(offset, stable));
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

    /** Completes once the watermark (or LSO) is above {@code offset} (at once if it is) or {@code stopped} holds. */
    CompletableFuture<Void> await(long offset, boolean stable, BooleanSupplier stopped) {
        CompletableFuture<Void> wait = new CompletableFuture<>();
        Runnable wake = () -> wait.complete(null);
        if (!wakeOn(offset, stable, stopped, wake)) {
            return CompletableFuture.completedFuture(null);
        }
        wait.whenComplete((v, e) -> cancel(wake));
        return wait;
    }
}
