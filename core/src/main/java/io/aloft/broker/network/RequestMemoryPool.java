package io.aloft.broker.network;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The broker-wide budget for request bytes held in memory ({@code queued.max.request.bytes}): a
 * frame's bytes are reserved here once its size prefix has been read and before any of its body is
 * buffered, and given back when the request has been handled. What the budget bounds is therefore
 * every request frame being read or waiting for its handler, on every connection.
 *
 * <p><b>Admission.</b> A reservation is granted when it fits in what is free. A frame larger than
 * the whole pool (possible when {@code socket.request.max.bytes} exceeds it) is granted alone,
 * once the pool is empty, as Kafka's memory pool admits one oversized buffer rather than refuse a
 * request its size limit allows. Requests that do not fit wait in arrival order and are granted
 * strictly first come, first served: a large frame at the head is not overtaken by smaller ones,
 * so it cannot starve.
 *
 * <p><b>Waiting.</b> A reservation that cannot be granted at once is queued with its
 * {@link Waiter}; a {@link #release} that makes room grants it (the bytes are then already taken)
 * and calls {@link Waiter#granted()} on the releasing thread, outside the lock: the waiter hops to
 * its own event loop. A waiter that goes away calls {@link #cancel}; if the grant raced ahead of
 * the cancel, the waiter's own {@code granted()} must release the bytes.
 *
 * <p>Thread-safe: every field is guarded by {@code this}; callbacks run outside the lock.
 */
final class RequestMemoryPool {
    /** Gets the bytes it asked for in {@link #reserve}; called once, on the thread that released them. */
    interface Waiter {
        void granted();
    }

    private record Pending(long bytes, Waiter waiter) {
    }

    /** {@link Long#MAX_VALUE}: unlimited. */
    private final long capacity;
    /** Guarded by this. */
    private long used;
    /** Guarded by this. */
    private long peak;
    /** Guarded by this; in arrival order. */
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();

    /** @param capacity bytes, or -1 for no limit */
    RequestMemoryPool(long capacity) {
        if (capacity != -1 && capacity <= 0) {
            throw new IllegalArgumentException("capacity must be -1 (unlimited) or positive: " + capacity);
        }
        this.capacity = capacity == -1 ? Long.MAX_VALUE : capacity;
    }

    /**
     * Takes {@code bytes} now and returns true, or queues {@code waiter} (to be granted later) and
     * returns false.
     */
    synchronized boolean reserve(long bytes, Waiter waiter) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative reservation " + bytes);
        }
        if (waiting.isEmpty() && fits(bytes)) {
            take(bytes);
            return true;
        }
        waiting.add(new Pending(bytes, waiter));
        return false;
    }

    /**
     * Removes {@code waiter}'s queued reservation. Returns false if it is not queued (it was
     * granted, or never queued): then the waiter owns whatever was granted.
     */
    boolean cancel(Waiter waiter) {
        List<Waiter> granted;
        synchronized (this) {
            boolean removed = false;
            for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
                if (it.next().waiter == waiter) {
                    it.remove();
                    removed = true;
                    break;
                }
            }
            if (!removed) {
                return false;
            }
            // The cancelled one may have been the head holding back others that fit.
            granted = grantWaiting();
        }
        granted.forEach(Waiter::granted);
        return true;
    }

    /** Gives back bytes reserved before, granting queued reservations that now fit. */
    void release(long bytes) {
        if (bytes <= 0) {
            return;
        }
        List<Waiter> granted;
        synchronized (this) {
            if (bytes > used) {
                throw new IllegalStateException("releasing " + bytes + " bytes of " + used + " reserved");
            }
            used -= bytes;
            granted = grantWaiting();
        }
        granted.forEach(Waiter::granted);
    }

    private List<Waiter> grantWaiting() {
        List<Waiter> granted = List.of();
        while (!waiting.isEmpty() && fits(waiting.peek().bytes)) {
            Pending p = waiting.poll();
            take(p.bytes);
            if (granted.isEmpty()) {
                granted = new ArrayList<>();
            }
            granted.add(p.waiter);
        }
        return granted;
    }

    /** Whether {@code bytes} may be taken now: it fits, or the pool is empty (an oversized frame alone). */
    private boolean fits(long bytes) {
        return used == 0 || bytes <= capacity - used;
    }

    private void take(long bytes) {
        used += bytes;
        peak = Math.max(peak, used);
    }

    /** Bytes reserved now. */
    synchronized long used() {
        return used;
    }

    /** The most bytes ever reserved at once. */
    synchronized long peak() {
        return peak;
    }

    /** Reservations waiting for memory. */
    synchronized int waiting() {
        return waiting.size();
    }

    /** Bytes, or {@link Long#MAX_VALUE} when unlimited. */
    long capacity() {
        return capacity;
    }
}
