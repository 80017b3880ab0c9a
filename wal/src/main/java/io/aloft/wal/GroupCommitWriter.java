package io.aloft.wal;

import io.aloft.wal.device.WalDevice;
import io.aloft.wal.format.RecordFormat;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * The write path: places appended records into 4 KiB-aligned blocks and writes the blocks to the
 * ring, grouping appends that arrive while earlier writes are in flight.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Placement.</b> Under {@link #lock}, an append is copied into the open block ({@link #current})
 *       at the next logical offset. A block holds at most {@code wal.max.batch.bytes} of records
 *       (a larger record gets a block of its own) and never crosses the end of the ring: a record
 *       that would is preceded by a padding block running to the ring's end.</li>
 *   <li><b>Group commit.</b> While fewer than {@code wal.max.inflight.writes} writes are in flight,
 *       the open block is sealed (padded to 4 KiB) and written at once; otherwise it keeps filling
 *       and is written when a slot frees.</li>
 *   <li><b>Ordering.</b> Blocks complete in offset order: an append's future completes only when its
 *       block and every earlier block are durable, so recovery (which stops at the first gap) never
 *       loses an acknowledged record.</li>
 *   <li><b>Back-pressure.</b> No block may extend past {@code durable scan start + ring size}:
 *       appends that do not fit wait, in order, in {@link #waiting} until a durable trim frees
 *       space, or fail with {@link WalFullException} after {@code wal.append.timeout.ms}.</li>
 *   <li><b>Boundaries.</b> Block starts are record boundaries ({@link Boundaries}); a trim persists
 *       as scan start the first one whose block still holds a record at or above the trim offset.</li>
 *   <li><b>Failure.</b> An I/O error (or anything a write throws) fails every pending append and
 *       the writer; the device is no longer trusted. The {@link WalFailureListener} is told (once),
 *       then pending futures are failed, after the lock is released.</li>
 * </ul>
 *
 * <p>Thread-safe. Mutable state is guarded by {@link #lock}; device writes run on the I/O executor;
 * append futures are completed outside the lock, in offset order, on the single callback thread
 * (timeouts on the timer thread, failures on the thread that saw the error). That thread serves
 * every append of the node, so what callers chain on the futures must be short: the stream store
 * only queues each completion on its stream's own thread.
 */
final class GroupCommitWriter {
    private static final int H = RecordFormat.HEADER_SIZE;
    private static final int A = WalConfig.ALIGNMENT;

    private final WalDevice device;
    private final Ring ring;
    private final int epoch;
    private final int maxBatch;
    private final int maxInflight;
    private final long appendTimeoutMs;
    private final Executor io;
    private final Executor callbacks;
    private final ScheduledExecutorService timer;
    private final WalStats stats;
    private final WalFailureListener failureListener;
    private final int pooledCapacity;
    private final ConcurrentLinkedQueue<ByteBuffer> pool = new ConcurrentLinkedQueue<>();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    // Guarded by lock:
    private Block current;
    private final ArrayDeque<Block> sealed = new ArrayDeque<>();
    private final ArrayDeque<Block> outstanding = new ArrayDeque<>();
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final List<DurableWaiter> durableWaiters = new ArrayList<>();
    private final Boundaries boundaries;
    private int inflight;
    /** Completions in progress outside the lock; close waits for them too. */
    private int completing;
    private long durableEnd;
    private long scanStart;
    private Throwable failure;
    private boolean closed;

    GroupCommitWriter(WalDevice device, Ring ring, int epoch, WalConfig config, long start, long scanStart,
            Boundaries recoveredBoundaries, Executor io, Executor callbacks, ScheduledExecutorService timer,
            WalStats stats, WalFailureListener failureListener) {
        this.device = device;
        this.ring = ring;
        this.epoch = epoch;
        this.maxBatch = config.maxBatchBytes();
        this.maxInflight = config.maxInflightWrites();
        this.appendTimeoutMs = config.appendTimeoutMs();
        this.io = io;
        this.callbacks = callbacks;
        this.timer = timer;
        this.stats = stats;
        this.failureListener = failureListener;
        this.pooledCapacity = Math.toIntExact(Ring.alignUp(maxBatch) + 2L * A);
        this.durableEnd = start;
        this.scanStart = scanStart;
        this.boundaries = recoveredBoundaries;
        this.current = newBlock(start);
    }

    /** One write: records packed from an aligned logical offset, padded to 4 KiB when sealed. */
    private static final class Block {
        final long start;
        ByteBuffer buf;
        int used;
        int size = -1;
        boolean done;
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        /** System.nanoTime() of each record's append call, for its latency; parallel to futures. */
        long[] started = new long[16];

        Block(long start, ByteBuffer buf) {
            this.start = start;
            this.buf = buf;
        }
    }

    private record Waiting(ByteBuffer body, CompletableFuture<Long> future, ScheduledFuture<?>[] timeout,
            long started) {
    }

    private record DurableWaiter(long target, CompletableFuture<Void> future) {
    }

    CompletableFuture<Long> append(ByteBuffer record) {
        long started = System.nanoTime();
        CompletableFuture<Long> future = new CompletableFuture<>();
        int length = record.remaining();
        if (length > ring.maxRecordBody()) {
            future.completeExceptionally(new IllegalArgumentException("a record of " + length
                    + " bytes exceeds the largest this WAL holds (" + ring.maxRecordBody() + " bytes); raise "
                    + WalConfig.CAPACITY_CONFIG));
            return future;
        }
        CRC32C checksum = RecordFormat.bodyChecksum(record); // outside the lock: CPU-heavy for large records
        lock.lock();
        try {
            if (rejectIfStopped(future)) {
                return future;
            }
            if (waiting.isEmpty() && place(record, checksum, future, started)) {
                pump();
            } else if (appendTimeoutMs == 0) {
                stats.fullTimeouts.increment();
                future.completeExceptionally(fullException(length));
            } else {
                stats.fullWaits.increment();
                ByteBuffer copy = ByteBuffer.allocate(length).put(record.duplicate()).flip();
                Waiting w = new Waiting(copy, future, new ScheduledFuture<?>[1], started);
                waiting.addLast(w);
                w.timeout[0] = timer.schedule(() -> expire(w), appendTimeoutMs, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
        return future;
    }

    private boolean rejectIfStopped(CompletableFuture<?> future) {
        if (failure != null) {
            future.completeExceptionally(new WalClosedException("WAL " + device.path() + " failed", failure));
            return true;
        }
        if (closed) {
            future.completeExceptionally(new WalClosedException("WAL " + device.path() + " is closed"));
            return true;
        }
        return false;
    }

    private WalFullException fullException(int length) {
        return new WalFullException("WAL " + device.path() + " is full: a record of " + length + " bytes found no "
                + "trimmed space within " + WalConfig.APPEND_TIMEOUT_CONFIG + "=" + appendTimeoutMs + " ms ("
                + usedBytesLocked() + " of " + ring.size() + " bytes in use)");
    }

    private void expire(Waiting w) {
        lock.lock();
        try {
            if (!waiting.remove(w)) {
                return; // placed meanwhile
            }
        } finally {
            lock.unlock();
        }
        stats.fullTimeouts.increment();
        stats.recordFullWait(System.nanoTime() - w.started);
        w.future.completeExceptionally(fullException(w.body.remaining()));
    }

    /**
     * Copies a record into the open block, sealing blocks and inserting ring-end padding as needed.
     * Returns false, leaving the record unplaced, when the ring lacks trimmed space for it.
     */
    private boolean place(ByteBuffer body, CRC32C checksum, CompletableFuture<Long> future, long started) {
        long framed = RecordFormat.framedSize(body.remaining());
        Block b = current;
        if (b.used > 0 && (b.used + framed > maxBatch || Ring.padded(b.used + framed) > ring.roomToEnd(b.start))) {
            seal(); // harmless even if the record then finds no space: the block is only written sooner
            b = current;
        }
        if (b.used == 0) {
            long room = ring.roomToEnd(b.start);
            if (Ring.padded(framed) > room) {
                if (!fitsInTrimmedSpace(b.start + room + Ring.padded(framed))) {
                    return false;
                }
                ensureCapacity(b, room);
                RecordFormat.writePadding(b.buf, 0, (int) room, b.start, epoch);
                b.used = (int) room;
                seal();
                b = current;
            }
            ensureCapacity(b, Ring.padded(framed));
        }
        if (!fitsInTrimmedSpace(b.start + Ring.padded(b.used + framed))) {
            return false;
        }
        long offset = b.start + b.used;
        RecordFormat.writeRecord(b.buf, b.used, offset, epoch, body, checksum);
        boundaries.noteRecord(offset);
        b.used += (int) framed;
        if (b.futures.size() == b.started.length) {
            b.started = java.util.Arrays.copyOf(b.started, b.started.length * 2);
        }
        b.started[b.futures.size()] = started;
        b.futures.add(future);
        b.offsets.add(offset);
        stats.appends.increment();
        stats.appendBytes.add(body.remaining());
        return true;
    }

    private boolean fitsInTrimmedSpace(long extentEnd) {
        return extentEnd <= scanStart + ring.size();
    }

    /** Gives an empty block a buffer of at least {@code size} bytes. */
    private void ensureCapacity(Block b, long size) {
        if (b.buf.capacity() < size) {
            recycle(b.buf);
            b.buf = WalDevice.allocate(Math.toIntExact(Ring.alignUp(size)));
        }
    }

    private Block newBlock(long start) {
        ByteBuffer buf = pool.poll();
        if (buf == null) {
            buf = WalDevice.allocate(pooledCapacity);
        }
        boundaries.add(start);
        return new Block(start, buf.clear());
    }

    private void recycle(ByteBuffer buf) {
        if (buf.capacity() == pooledCapacity && pool.size() < maxInflight + 2) {
            pool.offer(buf);
        }
    }

    /** Seals the open block (if it holds anything) and opens the next one. */
    private void seal() {
        Block b = current;
        if (b.used == 0) {
            return;
        }
        b.size = (int) Ring.padded(b.used);
        if (b.size > ring.roomToEnd(b.start)) {
            // Never expected: placement keeps every write inside one lap of the ring.
            throw new IllegalStateException("write of " + b.size + " bytes at " + b.start + " would cross the ring end");
        }
        if (b.size > b.used) {
            RecordFormat.writePadding(b.buf, b.used, b.size - b.used, b.start + b.used, epoch);
        }
        b.buf.position(0).limit(b.size);
        sealed.addLast(b);
        outstanding.addLast(b);
        current = newBlock(b.start + b.size);
    }

    /** Starts writes while I/O slots are free: sealed blocks first, then the open block. */
    private void pump() {
        while (inflight < maxInflight && failure == null) {
            if (sealed.isEmpty()) {
                if (current.used == 0) {
                    return;
                }
                seal();
            }
            Block b = sealed.pollFirst();
            inflight++;
            io.execute(() -> write(b));
        }
    }

    private void write(Block b) {
        Throwable error = null;
        try {
            device.write(b.buf, ring.position(b.start));
            device.sync();
            stats.writes.increment();
            stats.writeBytes.add(b.size);
        } catch (Throwable e) {
            // Anything, not only I/O errors: an Error here would otherwise end this thread with the
            // write still counted in flight, and every later append would wait for it forever.
            error = e;
        }
        recycle(b.buf);
        b.buf = null;
        onWritten(b, error);
    }

    private void onWritten(Block block, Throwable error) {
        if (error != null) {
            Runnable completion;
            lock.lock();
            try {
                inflight--;
                completion = fail(error);
            } finally {
                lock.unlock();
            }
            completion.run();
            return;
        }
        List<Block> completed = new ArrayList<>();
        List<CompletableFuture<Void>> reached = new ArrayList<>();
        lock.lock();
        try {
            inflight--;
            block.done = true;
            while (!outstanding.isEmpty() && outstanding.peekFirst().done) {
                Block b = outstanding.pollFirst();
                durableEnd = b.start + b.size;
                completed.add(b);
            }
            for (Iterator<DurableWaiter> it = durableWaiters.iterator(); it.hasNext(); ) {
                DurableWaiter w = it.next();
                if (w.target <= durableEnd) {
                    reached.add(w.future);
                    it.remove();
                }
            }
            pump();
            completing++;
        } finally {
            lock.unlock();
        }
        // Completions run on the callback thread, in order: the I/O thread goes straight back to
        // the device instead of waking every appender of the block first.
        try {
            callbacks.execute(() -> complete(completed, reached));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            complete(completed, reached); // close gave up waiting and stopped the thread
        }
    }

    private void complete(List<Block> completed, List<CompletableFuture<Void>> reached) {
        try {
            long now = System.nanoTime();
            for (Block b : completed) {
                for (int i = 0; i < b.futures.size(); i++) {
                    stats.recordAppendLatency(now - b.started[i]);
                    b.futures.get(i).complete(b.offsets.get(i));
                }
            }
            reached.forEach(f -> f.complete(null));
        } finally {
            lock.lock();
            try {
                completing--;
                if (isDrained()) {
                    drained.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private boolean isDrained() {
        return inflight == 0 && outstanding.isEmpty() && completing == 0;
    }

    /**
     * Fails the writer and takes everything pending out of it. Call with the lock held, and run
     * the returned completion after releasing it: it tells the listener (the first time), then
     * fails the pending futures. Completing under the lock would run callers' callbacks under it,
     * and a caller that appends while holding its own lock (the stream store does) would then
     * wait for this lock while this thread waits for the caller's lock in a callback.
     */
    private Runnable fail(Throwable error) {
        boolean first = failure == null;
        if (first) {
            failure = error;
        }
        WalClosedException e = new WalClosedException("write to WAL " + device.path() + " failed", error);
        List<CompletableFuture<?>> failed = new ArrayList<>();
        for (Block b : outstanding) {
            failed.addAll(b.futures);
        }
        failed.addAll(current.futures);
        current.futures.clear();
        current.offsets.clear();
        outstanding.clear();
        sealed.clear();
        for (Waiting w : waiting) {
            w.timeout[0].cancel(false);
            failed.add(w.future);
        }
        waiting.clear();
        durableWaiters.forEach(w -> failed.add(w.future));
        durableWaiters.clear();
        drained.signalAll();
        return () -> {
            try {
                // The listener first: it hears of the root cause before callers react to their failed
                // appends (and report consequences of it).
                if (first) {
                    failureListener.walFailed(device.path(), error);
                }
            } finally {
                failed.forEach(f -> f.completeExceptionally(e));
            }
        };
    }

    /** Fails the writer from outside (e.g. a header write error); the listener hears of it if first. */
    void failExternally(Throwable error) {
        Runnable completion;
        lock.lock();
        try {
            completion = fail(error);
        } finally {
            lock.unlock();
        }
        completion.run();
    }

    /**
     * Returns the record boundary to persist as scan start for a trim to {@code offset}: the
     * start of the first block still holding a record at or above it (possibly above
     * {@code offset} itself, when only padding lies between).
     */
    long boundaryFor(long offset) {
        lock.lock();
        try {
            long next = current.start + current.used;
            if (offset > next) {
                throw new IllegalArgumentException("trim offset " + offset + " is beyond the log's end " + next);
            }
            return boundaries.scanStartFor(offset);
        } finally {
            lock.unlock();
        }
    }

    /** A trim with this scan start is durable: its space may be reused; waiting appends go first. */
    void onTrimDurable(long newScanStart) {
        lock.lock();
        try {
            if (newScanStart <= scanStart || failure != null) {
                return;
            }
            scanStart = newScanStart;
            while (!waiting.isEmpty()) {
                Waiting w = waiting.peekFirst();
                if (!place(w.body, RecordFormat.bodyChecksum(w.body), w.future, w.started)) {
                    break;
                }
                waiting.pollFirst();
                stats.recordFullWait(System.nanoTime() - w.started);
                w.timeout[0].cancel(false);
            }
            pump();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Seals the open block and returns a future completing with the end of everything accepted so
     * far, once it is durable.
     */
    CompletableFuture<Long> sealAndAwaitDurable() {
        CompletableFuture<Void> reached = new CompletableFuture<>();
        long target;
        lock.lock();
        try {
            if (rejectIfStopped(reached)) {
                return reached.thenApply(v -> 0L);
            }
            seal();
            pump();
            target = current.start;
            if (durableEnd >= target) {
                reached.complete(null);
            } else {
                durableWaiters.add(new DurableWaiter(target, reached));
            }
        } finally {
            lock.unlock();
        }
        return reached.thenApply(v -> target);
    }

    /** The error that failed the writer, or null while it works. */
    Throwable failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    long nextOffset() {
        lock.lock();
        try {
            return current.start + current.used;
        } finally {
            lock.unlock();
        }
    }

    long usedBytes() {
        lock.lock();
        try {
            return usedBytesLocked();
        } finally {
            lock.unlock();
        }
    }

    private long usedBytesLocked() {
        return current.start + Ring.padded(current.used) - scanStart;
    }

    /**
     * Stops accepting appends, fails those waiting for space, writes what was accepted and waits
     * (up to {@code timeoutMs}) for it to become durable.
     */
    void close(long timeoutMs) throws InterruptedException {
        List<CompletableFuture<Long>> rejected = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Waiting w : waiting) {
                w.timeout[0].cancel(false);
                rejected.add(w.future);
            }
            waiting.clear();
            seal();
            pump();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!isDrained() && failure == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                drained.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
        rejected.forEach(f -> f.completeExceptionally(new WalClosedException("WAL " + device.path() + " closed")));
    }
}
