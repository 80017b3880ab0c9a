package io.aloft.stream.store;

import io.aloft.stream.StreamException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/**
 * The budget of reads that must go to object storage (catch-up reads: the log cache no longer
 * holds their offsets), kept apart from the write path and from tail reads, which never pass
 * through here:
 * <ul>
 *   <li><b>Own threads.</b> Once a read's bytes arrive, everything after it (the caller's
 *       continuations: assembling the fetch answer, reading the next partition of the same fetch)
 *       runs on this class's {@link CatchUpReadConfig#THREADS_CONFIG} threads, not on the object
 *       storage client's I/O threads, which also carry uploads and the WAL's object writes; with
 *       fewer threads than cores, catch-up work cannot take every core from appends.</li>
 *   <li><b>In-flight bytes.</b> Reads start while the bytes they ask for fit
 *       {@link CatchUpReadConfig#IN_FLIGHT_CONFIG}; later ones wait in arrival order. A fetch
 *       has at most one object read in flight, so arrival order is turn by turn between consumers.</li>
 *   <li><b>Byte rate.</b> Optionally, {@link CatchUpReadConfig#RATE_CONFIG}: what reads deliver
 *       is charged to a {@link ByteRate}, and the next read waits while it is in debt.</li>
 * </ul>
 * Waiting is how back-pressure shows: the fetch answers later, as a slower fetch would, never
 * with an error.
 *
 * <p>Thread-safe: state is guarded by this object's monitor; reads start on the caller's thread
 * when there is room, else on one of this class's threads.
 */
final class CatchUpReads implements AutoCloseable {
    private static final long MAX_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private final ScheduledThreadPoolExecutor pool;
    private final long inFlightBudget;
    private final LongSupplier nanoTime;
    /** Guarded by this. */
    private final ByteRate rate;
    /** Guarded by this. */
    private final ArrayDeque<Pending<?>> waiting = new ArrayDeque<>();
    /** Bytes asked for by reads started and not finished; guarded by this. */
    private long inFlight;
    /** A wake-up for the rate's debt is scheduled; guarded by this. */
    private boolean wakeScheduled;
    /** Guarded by this. */
    private boolean closed;
    /** Reads that had to wait; guarded by this. */
    private long waits;

    CatchUpReads(int threads, long inFlightBudget, long bytesPerSecond, LongSupplier nanoTime,
            Thread.UncaughtExceptionHandler handler) {
        this.pool = new ScheduledThreadPoolExecutor(threads, daemonThreads(handler));
        this.pool.setRemoveOnCancelPolicy(true);
        this.inFlightBudget = inFlightBudget;
        this.nanoTime = nanoTime;
        this.rate = new ByteRate(bytesPerSecond, nanoTime.getAsLong());
    }

    private static ThreadFactory daemonThreads(Thread.UncaughtExceptionHandler handler) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "aloft-catchup-read-" + n.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(handler);
            return t;
        };
    }

    /** A read waiting for room; its result completes on this class's threads. */
    private static final class Pending<T> {
        final long asked;
        final LongFunction<CompletableFuture<T>> read;
        final ToLongFunction<T> delivered;
        final CompletableFuture<T> result = new CompletableFuture<>();

        Pending(long asked, LongFunction<CompletableFuture<T>> read, ToLongFunction<T> delivered) {
            this.asked = Math.max(0, asked);
            this.read = read;
            this.delivered = delivered;
        }
    }

    /**
     * Runs {@code read} once the budget has room for {@code askedBytes}, and completes with its
     * result on one of this class's threads. {@code read} is given the bytes it may deliver: all it
     * asked for, or under a byte rate at most {@link ByteRate#grant} (about a tenth of a second of
     * the rate), so a paced consumer gets smaller fetches soon rather than a large one after a wait
     * that could outlast its request timeout.
     *
     * @param delivered the bytes a result delivered, charged to the byte rate
     */
    <T> CompletableFuture<T> read(long askedBytes, LongFunction<CompletableFuture<T>> read,
            ToLongFunction<T> delivered) {
        Pending<T> p = new Pending<>(askedBytes, read, delivered);
        boolean startNow;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new StreamException("stream store is closed"));
            }
            startNow = waiting.isEmpty() && mayStartLocked(p);
            if (startNow) {
                inFlight += p.asked;
            } else {
                waits++;
                waiting.add(p);
                scheduleWakeLocked();
            }
        }
        if (startNow) {
            start(p);
        }
        return p.result;
    }

    private boolean mayStartLocked(Pending<?> p) {
        boolean fits = inFlight == 0 || inFlight + p.asked <= inFlightBudget;
        return fits && rate.delayNanos(nanoTime.getAsLong()) == 0;
    }

    private <T> void start(Pending<T> p) {
        CompletableFuture<T> f;
        try {
            f = p.read.apply(rate.grant(p.asked));
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((r, error) -> hop(() -> finish(p, r, error)));
    }

    private <T> void finish(Pending<T> p, T r, Throwable error) {
        List<Pending<?>> ready;
        synchronized (this) {
            inFlight -= p.asked;
            if (error == null && r != null) {
                rate.spend(p.delivered.applyAsLong(r), nanoTime.getAsLong());
            }
            ready = drainLocked();
        }
        ready.forEach(this::start); // before this read's continuations, so the next GETs overlap them
        if (error != null) {
            p.result.completeExceptionally(error);
        } else {
            p.result.complete(r);
        }
    }

    /** Takes the waiting reads that now fit, in order, and counts them in flight. */
    private List<Pending<?>> drainLocked() {
        List<Pending<?>> ready = new ArrayList<>();
        while (!waiting.isEmpty() && mayStartLocked(waiting.peek())) {
            Pending<?> p = waiting.poll();
            inFlight += p.asked;
            ready.add(p);
        }
        scheduleWakeLocked();
        return ready;
    }

    /** While reads wait for the rate's debt alone (nothing in flight will wake them), wakes up when it is repaid. */
    private void scheduleWakeLocked() {
        if (waiting.isEmpty() || wakeScheduled || closed || !rate.limited()) {
            return;
        }
        long delay = rate.delayNanos(nanoTime.getAsLong());
        if (delay <= 0 && inFlight > 0) {
            return; // waits for room in flight: the next finish wakes it
        }
        wakeScheduled = true;
        try {
            // Looks again at least every 50 ms: cheap, and the debt is re-read from the clock each time.
            pool.schedule(this::wake, Math.min(Math.max(delay, 1), MAX_WAKE_NANOS), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            wakeScheduled = false; // closing: close() fails the waiting reads
        }
    }

    private void wake() {
        List<Pending<?>> ready;
        synchronized (this) {
            wakeScheduled = false;
            ready = drainLocked();
        }
        ready.forEach(this::start);
    }

    /** Runs on this class's threads; inline once they are shut down (the store is closing). */
    private void hop(Runnable task) {
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Reads that have had to wait for room so far (tests, metrics). */
    synchronized long waits() {
        return waits;
    }

    /** Bytes asked for by reads in flight now (tests, metrics). */
    synchronized long inFlightBytes() {
        return inFlight;
    }

    /** Fails the waiting reads and stops the threads; reads in flight complete on the caller's side. */
    @Override
    public void close() {
        List<Pending<?>> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(waiting);
            waiting.clear();
        }
        pool.shutdownNow();
        dropped.forEach(p -> p.result.completeExceptionally(new StreamException("stream store is closed")));
    }
}
