package io.aloft.broker.log;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A partition's high watermark (the offset past the last durable record) and the fetches waiting
 * for it to move. All waiters share one future, replaced each time the watermark moves, so memory
 * is one future plus one dependent per waiter whatever the number of waiting fetches.
 *
 * <p>Thread-safe: moves happen under {@code lock}, reads of the value need none.
 */
final class HighWatermark {
    private final Object lock = new Object();
    /** Written under lock. */
    private volatile long value;
    /** Completed when the watermark next moves (or waiters are woken); guarded by lock. */
    private CompletableFuture<Void> moved = new CompletableFuture<>();

    HighWatermark(long initial) {
        this.value = initial;
    }

    long get() {
        return value;
    }

    /** Moves the watermark up to {@code end} (never down) and wakes the waiters if it moved. */
    void advanceTo(long end) {
        CompletableFuture<Void> woken;
        synchronized (lock) {
            if (end <= value) {
                return;
            }
            value = end;
            woken = moved;
            moved = new CompletableFuture<>();
        }
        woken.complete(null);
    }

    /** Wakes every waiter (the log closed or failed): each checks again and returns. */
    void wakeAll() {
        CompletableFuture<Void> woken;
        synchronized (lock) {
            woken = moved;
            moved = new CompletableFuture<>();
        }
        woken.complete(null);
    }

    /** Completes once the watermark is above {@code offset} (at once if it already is) or {@code stopped} holds. */
    CompletableFuture<Void> await(long offset, BooleanSupplier stopped) {
        CompletableFuture<Void> next;
        synchronized (lock) {
            if (value > offset || stopped.getAsBoolean()) {
                return CompletableFuture.completedFuture(null);
            }
            next = moved;
        }
        return next.thenCompose(v -> await(offset, stopped));
    }
}
