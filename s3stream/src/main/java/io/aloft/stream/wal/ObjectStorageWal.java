package io.aloft.stream.wal;

import io.aloft.stream.storage.ObjectInfo;
import io.aloft.stream.storage.ObjectNotFoundException;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.wal.WalClosedException;
import io.aloft.wal.WalException;
import io.aloft.wal.WalRecord;
import io.aloft.wal.WalStats;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A write-ahead log kept in object storage, so that any broker can read (and take over) the log of
 * a broker that died: the WAL placement for brokers without a volume that can move.
 *
 * <p><b>Writing.</b> Appends are group-committed: while one object PUT is in flight, the appends
 * that arrive wait and go into the next object together (at most {@code maxObjectBytes}), so the
 * batch grows with the load. With a batch interval, an object's PUT also starts no sooner than that
 * interval after the previous one started, unless the appends waiting fill an object: PUTs per
 * second stay at most one per interval (plus one per full object), which is what object storage
 * charges for, at the price of up to one interval of produce latency. An append's future
 * completes once the object holding it, and every object before it, is stored. Objects are
 * numbered in order and each is written with a conditional PUT ({@link ObjectStorage#putIfAbsent})
 * at the key of its number ({@link ObjectWalFormat}).
 *
 * <p><b>Fencing.</b> A broker taking the log over ({@link #takeOver}) stores fence objects at the
 * next {@value #FENCE_AHEAD} numbers after the last object it lists, all at once. The writer stores
 * its objects one after another, so before those land it can take a few of those numbers at most;
 * its next object then needs one the fences hold, its conditional PUT fails, and from then on every
 * append fails with {@link WalFencedException}: nothing more is acknowledged. A PUT whose outcome
 * was unknown (a timeout) is retried with the same bytes; finding the key taken by identical bytes
 * means the first attempt succeeded.
 *
 * <p><b>Trimming.</b> The trim point is kept in the object {@code <prefix>trim}; objects wholly
 * below it are deleted after it is stored. Recovery returns the records at or above it.
 *
 * <p>Thread-safe: appends from any thread; state under {@code this}; futures complete on the
 * object storage's threads; a PUT held back for the batch interval starts on the JDK's delay
 * scheduler thread.
 */
public final class ObjectStorageWal implements WriteAheadLog {
    private static final Logger log = LoggerFactory.getLogger(ObjectStorageWal.class);
    private static final String TRIM_KEY = "trim";
    private static final long RETRY_BACKOFF_MS = 200;
    private static final long MAX_RETRY_BACKOFF_MS = 2_000;
    private static final int LOG_EVERY_ATTEMPTS = 10;
    private static final int TAKE_OVER_ATTEMPTS = 20;
    private static final int FENCE_AHEAD = 8;

    private final ObjectStorage storage;
    private final String prefix;
    private final int maxObjectBytes;
    private final long batchIntervalNanos;
    private final List<WalRecord> recovered;
    private final WalStats stats = new WalStats();
    /** Stored objects not trimmed yet: sequence number to size. */
    private final TreeMap<Long, Long> objects = new TreeMap<>();
    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    /** Bytes of the records in {@link #pending}, with their record headers. */
    private long pendingBytes;
    /** An object PUT is in flight, or one is held back for the batch interval. */
    private boolean writing;
    /** A held-back PUT is waiting for its timer. */
    private boolean timerSet;
    /** Set by close and reset: what waits goes at once, without waiting for the interval. */
    private boolean flushing;
    /** When the last object PUT started (System.nanoTime). */
    private long lastPutStartNanos;
    private long nextSequence;
    private long trimOffset;
    /** Set once appends can no longer succeed: closed, fenced, or object storage gave up. */
    private RuntimeException failure;
    private CompletableFuture<Void> idle = CompletableFuture.completedFuture(null);
    /** Told once when appends stop succeeding for a reason other than close (fenced, storage gave up). */
    private volatile java.util.function.Consumer<RuntimeException> failureListener = e -> { };

    /** One accepted append; {@code started} is its System.nanoTime() when appended, for its latency. */
    private record Pending(ByteBuffer body, CompletableFuture<Long> done, long started) {
    }

    private ObjectStorageWal(ObjectStorage storage, String prefix, int maxObjectBytes, long batchIntervalMs,
            Map<Long, Long> objects, long nextSequence, long trimOffset, List<WalRecord> recovered) {
        this.storage = storage;
        this.prefix = prefix;
        this.maxObjectBytes = maxObjectBytes;
        this.batchIntervalNanos = TimeUnit.MILLISECONDS.toNanos(batchIntervalMs);
        this.lastPutStartNanos = System.nanoTime() - batchIntervalNanos;
        this.objects.putAll(objects);
        this.nextSequence = nextSequence;
        this.trimOffset = trimOffset;
        this.recovered = recovered;
    }

    /**
     * Opens the log under {@code prefix} as its owner, reading what it holds from the trim point on
     * (if another broker took it over, the log ends in fences and writing goes on after them; what
     * lies before them is read only if that take-over was not released).
     *
     * @param prefix the key prefix of this log, e.g. {@code wal/node-3/}
     * @param maxObjectBytes the most bytes one object (one group commit) holds
     */
    public static ObjectStorageWal open(ObjectStorage storage, String prefix, int maxObjectBytes) {
        return open(storage, prefix, maxObjectBytes, 0);
    }

    /**
     * As {@link #open(ObjectStorage, String, int)}, with a batch interval (see the class comment).
     *
     * @param batchIntervalMs the least time between the starts of two object PUTs, unless an object
     *     is full; 0 for none (a PUT starts as soon as the previous one is stored)
     */
    public static ObjectStorageWal open(ObjectStorage storage, String prefix, int maxObjectBytes,
            long batchIntervalMs) {
        if (batchIntervalMs < 0) {
            throw new IllegalArgumentException("batchIntervalMs " + batchIntervalMs + " is negative");
        }
        if (maxObjectBytes < ObjectWalFormat.HEADER_BYTES + ObjectWalFormat.RECORD_HEADER_BYTES + 1
                || maxObjectBytes > ObjectWalFormat.MAX_OBJECT_BYTES) {
            throw new IllegalArgumentException("maxObjectBytes " + maxObjectBytes + " is outside ["
                    + (ObjectWalFormat.HEADER_BYTES + ObjectWalFormat.RECORD_HEADER_BYTES + 1) + ", "
                    + ObjectWalFormat.MAX_OBJECT_BYTES + "]");
        }
        Listing listing = Listing.of(storage, prefix);
        boolean takenOver = listing.endsInFence();
        // Taken over: what lies before the fence is the take-over's, unless it was never released (its
        // broker died midway); then it is recovered here, like any record, and nothing is lost.
        List<WalRecord> records = listing.records(storage, prefix,
                takenOver ? listing.lowestTrailingFence() : listing.nextSequence());
        long trim = listing.trim();
        log.info("Opened WAL {} in object storage: {} objects, {} records to recover{}", prefix,
                listing.objects().size(), records.size(), takenOver ? " (taken over by another broker before)" : "");
        return new ObjectStorageWal(storage, prefix, maxObjectBytes, batchIntervalMs, listing.objects(),
                listing.nextSequence(), trim, records);
    }

    /**
     * Registers what to tell once this log stops accepting appends because it was fenced or object
     * storage kept failing (a broker treats that like a failed WAL device). Set it right after open.
     */
    public ObjectStorageWal onFailure(java.util.function.Consumer<RuntimeException> listener) {
        this.failureListener = listener;
        return this;
    }

    /** What a broker taking over a log recovers: its records from the trim point to the fence. */
    public record TakenOver(List<WalRecord> records, long fenceOffset) {
    }

    /**
     * Takes the log under {@code prefix} over from its owner (dead, or alive and about to learn it
     * lost it): stores fences at the next numbers (see the class comment), so the owner's next object
     * cannot be stored, then reads every record stored before the lowest fence. Call {@link #release}
     * once they are safe elsewhere. Found already fenced (an earlier take-over), it returns what that
     * one left unreleased, from the trim point to its lowest fence: a take-over whose broker died
     * before releasing is simply done again (nothing, once released).
     */
    public static TakenOver takeOver(ObjectStorage storage, String prefix) {
        for (int attempt = 1; attempt <= TAKE_OVER_ATTEMPTS; attempt++) {
            Listing listing = Listing.of(storage, prefix);
            if (listing.endsInFence()) {
                long lowest = listing.lowestTrailingFence();
                List<WalRecord> records = listing.records(storage, prefix, lowest);
                log.info("WAL {} was taken over before: {} records before object {} not released yet", prefix,
                        records.size(), lowest);
                return new TakenOver(records, ObjectWalFormat.offset(lowest));
            }
            long first = listing.nextSequence();
            List<CompletableFuture<Boolean>> fences = new ArrayList<>();
            for (long seq = first; seq < first + FENCE_AHEAD; seq++) {
                fences.add(storage.putIfAbsent(ObjectWalFormat.key(prefix, seq), ObjectWalFormat.fence(seq)));
            }
            long lowest = -1;
            for (int i = 0; i < fences.size(); i++) {
                if (join(fences.get(i)) && lowest < 0) {
                    lowest = first + i;
                }
            }
            if (lowest >= 0) {
                // The owner stopped at the lowest fence: nothing of it lies beyond (it stores in order).
                List<WalRecord> records = Listing.of(storage, prefix).records(storage, prefix, lowest);
                log.info("Took over WAL {}: {} records before object {}", prefix, records.size(), lowest);
                return new TakenOver(records, ObjectWalFormat.offset(lowest));
            }
            // The owner took every one of those numbers meanwhile: list again and fence further on.
        }
        throw new WalException("could not fence WAL " + prefix + " after " + TAKE_OVER_ATTEMPTS + " attempts: its "
                + "owner keeps writing");
    }

    /** Ends a take-over: the records up to the fence are safe elsewhere, so the objects before it go. */
    public static void release(ObjectStorage storage, String prefix, long fenceOffset) {
        join(storage.put(prefix + TRIM_KEY, ByteBuffer.allocate(8).putLong(0, fenceOffset)));
        List<String> gone = new ArrayList<>();
        for (ObjectInfo o : join(storage.list(prefix))) {
            long seq = ObjectWalFormat.sequenceOf(prefix, o.key());
            if (seq >= 0 && seq < ObjectWalFormat.sequence(fenceOffset)) {
                gone.add(o.key());
            }
        }
        if (!gone.isEmpty()) {
            join(storage.delete(gone));
        }
    }

    /** The log's objects (sequence number to size, from one LIST) and its trim point. */
    private record Listing(TreeMap<Long, Long> objects, long trim) {
        static Listing of(ObjectStorage storage, String prefix) {
            long trim = 0;
            try {
                trim = join(storage.get(prefix + TRIM_KEY)).getLong(0);
            } catch (ObjectNotFoundException e) {
                // Never trimmed.
            }
            TreeMap<Long, Long> objects = new TreeMap<>();
            for (ObjectInfo o : join(storage.list(prefix))) {
                long seq = ObjectWalFormat.sequenceOf(prefix, o.key());
                if (seq >= 0) {
                    objects.put(seq, o.size());
                }
            }
            return new Listing(objects, trim);
        }

        long nextSequence() {
            long afterTrim = ObjectWalFormat.sequence(trim) + (trim % ObjectWalFormat.MAX_OBJECT_BYTES == 0 ? 0 : 1);
            return objects.isEmpty() ? afterTrim : Math.max(afterTrim, objects.lastKey() + 1);
        }

        /** The first of the fences the log ends in (call only when {@link #endsInFence}). */
        long lowestTrailingFence() {
            long lowest = objects.lastKey();
            for (Map.Entry<Long, Long> o : objects.descendingMap().entrySet()) {
                if (o.getValue() != ObjectWalFormat.HEADER_BYTES) {
                    break;
                }
                lowest = o.getKey();
            }
            return lowest;
        }

        /** Whether the last object is a fence (the only kind that holds no record). */
        boolean endsInFence() {
            return !objects.isEmpty() && objects.lastEntry().getValue() == ObjectWalFormat.HEADER_BYTES;
        }

        /**
         * The records from the trim point in objects numbered below {@code before}, each object read
         * and checked. Fences hold none; objects after a fence are a later run's.
         */
        List<WalRecord> records(ObjectStorage storage, String prefix, long before) {
            List<WalRecord> records = new ArrayList<>();
            long trimSequence = ObjectWalFormat.sequence(trim);
            for (Map.Entry<Long, Long> o : objects.entrySet()) {
                long seq = o.getKey();
                if (seq < trimSequence || seq >= before || o.getValue() == ObjectWalFormat.HEADER_BYTES) {
                    continue; // trimmed (deleted at the next trim), past the end asked for, or a fence
                }
                ByteBuffer object = join(storage.get(ObjectWalFormat.key(prefix, seq)));
                for (WalRecord r : ObjectWalFormat.decode(object, seq)) {
                    if (r.offset() >= trim) {
                        records.add(r);
                    }
                }
            }
            return records;
        }
    }

    @Override
    public CompletableFuture<Long> append(ByteBuffer record) {
        long started = System.nanoTime();
        int size = record.remaining();
        if (ObjectWalFormat.HEADER_BYTES + ObjectWalFormat.RECORD_HEADER_BYTES + (long) size > maxObjectBytes) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a record of " + size
                    + " bytes does not fit one WAL object of at most " + maxObjectBytes + " bytes"));
        }
        ByteBuffer copy = ByteBuffer.allocate(size).put(record.duplicate()).flip();
        CompletableFuture<Long> done = new CompletableFuture<>();
        synchronized (this) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            pending.add(new Pending(copy, done, started));
            pendingBytes += ObjectWalFormat.RECORD_HEADER_BYTES + size;
            stats.recordAppend(size);
            if (!writing) {
                writeNext();
            } else if (timerSet && objectFull()) {
                writeNext(); // a full object does not wait for the interval
            }
        }
        return done;
    }

    /** Whether what waits fills an object. The caller holds the lock. */
    private boolean objectFull() {
        return ObjectWalFormat.HEADER_BYTES + pendingBytes >= maxObjectBytes;
    }

    /**
     * Starts the PUT of the next object from what is pending, or sets a timer for it if the batch
     * interval since the last PUT started has not passed (and the object is not full yet). The
     * caller holds the lock and no PUT is in flight.
     */
    private void writeNext() {
        if (pending.isEmpty()) {
            writing = false;
            flushing = false; // a reset's flush ends once what it waited for is stored
            idle.complete(null);
            return;
        }
        if (!writing) {
            writing = true;
            idle = new CompletableFuture<>();
        }
        long waitNanos = lastPutStartNanos + batchIntervalNanos - System.nanoTime();
        if (waitNanos > 0 && !flushing && !objectFull()) {
            if (!timerSet) {
                timerSet = true;
                // The task only cuts the object and starts an asynchronous PUT, so it may run on the
                // delay scheduler's own thread.
                CompletableFuture.delayedExecutor(waitNanos, TimeUnit.NANOSECONDS, Runnable::run).execute(() -> {
                    synchronized (this) {
                        if (timerSet) {
                            writeNext();
                        }
                    }
                });
            }
            return;
        }
        timerSet = false;
        lastPutStartNanos = System.nanoTime();
        List<Pending> batch = new ArrayList<>();
        long bytes = ObjectWalFormat.HEADER_BYTES;
        while (!pending.isEmpty()) {
            long next = bytes + ObjectWalFormat.RECORD_HEADER_BYTES + pending.peekFirst().body().remaining();
            if (next > maxObjectBytes && !batch.isEmpty()) {
                break;
            }
            Pending p = pending.pollFirst();
            pendingBytes -= ObjectWalFormat.RECORD_HEADER_BYTES + p.body().remaining();
            batch.add(p);
            bytes = next;
        }
        long seq = nextSequence++;
        ByteBuffer object = ObjectWalFormat.encode(seq, batch.stream().map(Pending::body).toList());
        store(seq, object, batch, 1);
    }

    private void store(long seq, ByteBuffer object, List<Pending> batch, int attempt) {
        String key = ObjectWalFormat.key(prefix, seq);
        storage.putIfAbsent(key, object.duplicate()).handle((written, error) -> {
            if (error == null && written) {
                stored(seq, object, batch);
            } else if (error == null) {
                // Taken: by our own earlier attempt whose answer was lost, or by a fence.
                storage.get(key).whenComplete((existing, readError) -> {
                    if (readError == null && existing.equals(object.duplicate())) {
                        stored(seq, object, batch);
                    } else {
                        fail(batch, readError != null ? new WalException("WAL " + prefix + ": object " + key
                                + " could not be checked", readError)
                                : new WalFencedException("WAL " + prefix + " was taken over by another broker: "
                                        + "nothing more is written to it"));
                    }
                });
            } else if (closedWhileRetrying(batch)) {
                log.warn("WAL {}: object {} was not stored before the log closed", prefix, key, error);
            } else {
                // Object storage down or failing: retried for as long as that lasts, with the same bytes.
                // Appends wait meanwhile; the stream store's budget turns new produce away (retriable)
                // once what waits nears it, so the broker neither stops nor grows without bound.
                if (attempt == 1 || attempt % LOG_EVERY_ATTEMPTS == 0) {
                    log.warn("WAL {}: storing object {} failed (attempt {}), retrying until it succeeds", prefix,
                            key, attempt, error);
                }
                long backoff = Math.min(MAX_RETRY_BACKOFF_MS, RETRY_BACKOFF_MS * attempt);
                CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS)
                        .execute(() -> store(seq, object, batch, attempt + 1));
            }
            return null;
        });
    }

    private void stored(long seq, ByteBuffer object, List<Pending> batch) {
        stats.recordWrite(object.remaining());
        long offset = ObjectWalFormat.offset(seq) + ObjectWalFormat.HEADER_BYTES;
        synchronized (this) {
            objects.put(seq, (long) object.remaining());
        }
        long now = System.nanoTime();
        for (Pending p : batch) {
            stats.recordAppendLatency(now - p.started());
            p.done().complete(offset);
            offset += ObjectWalFormat.RECORD_HEADER_BYTES + p.body().remaining();
        }
        synchronized (this) {
            writeNext();
        }
    }

    /**
     * If the log was closed, fails the batch and everything pending with the close (the failure
     * listener is not told: nothing failed but the retries stopping) and returns true.
     */
    private boolean closedWhileRetrying(List<Pending> batch) {
        List<Pending> rest;
        RuntimeException closed;
        synchronized (this) {
            if (!(failure instanceof WalClosedException c)) {
                return false;
            }
            closed = c;
            rest = new ArrayList<>(pending);
            pending.clear();
            pendingBytes = 0;
            timerSet = false;
            writing = false;
            idle.complete(null);
        }
        batch.forEach(p -> p.done().completeExceptionally(closed));
        rest.forEach(p -> p.done().completeExceptionally(closed));
        return true;
    }

    /** Fails the batch and everything after it: a later object may not be acknowledged past a failed one. */
    private void fail(List<Pending> batch, RuntimeException cause) {
        List<Pending> rest;
        boolean first;
        synchronized (this) {
            first = failure == null || failure instanceof WalClosedException;
            if (first) {
                failure = cause;
            }
            rest = new ArrayList<>(pending);
            pending.clear();
            pendingBytes = 0;
            timerSet = false;
            writing = false;
            idle.complete(null);
        }
        log.error("WAL {} stops accepting appends", prefix, cause);
        batch.forEach(p -> p.done().completeExceptionally(cause));
        rest.forEach(p -> p.done().completeExceptionally(cause));
        if (first) {
            failureListener.accept(cause);
        }
    }

    @Override
    public Iterator<WalRecord> recover() {
        return recovered.iterator();
    }

    @Override
    public CompletableFuture<Void> trim(long offset) {
        List<String> gone = new ArrayList<>();
        synchronized (this) {
            if (offset > nextOffset()) {
                throw new IllegalArgumentException("trim offset " + offset + " is past the end " + nextOffset());
            }
            if (offset <= trimOffset) {
                return CompletableFuture.completedFuture(null);
            }
            trimOffset = offset;
            // Object s spans [offset(s), offset(s + 1)): wholly below the trim point when offset(s + 1) <= it.
            for (long seq : objects.headMap(ObjectWalFormat.sequence(offset)).keySet()) {
                gone.add(ObjectWalFormat.key(prefix, seq));
            }
            objects.headMap(ObjectWalFormat.sequence(offset)).clear();
        }
        stats.recordHeaderWrite();
        return storage.put(prefix + TRIM_KEY, ByteBuffer.allocate(8).putLong(0, offset))
                .thenCompose(v -> gone.isEmpty() ? CompletableFuture.completedFuture(null) : storage.delete(gone));
    }

    @Override
    public CompletableFuture<Void> reset() {
        CompletableFuture<Void> drained;
        synchronized (this) {
            drained = flush();
        }
        return drained.thenCompose(v -> trim(nextOffset()));
    }

    /**
     * From now on what waits is written without waiting for the batch interval (reset and close
     * wait for it); returns the future of the log going idle. The caller holds the lock.
     */
    private CompletableFuture<Void> flush() {
        flushing = true;
        if (timerSet) {
            writeNext();
        }
        return idle;
    }

    @Override
    public synchronized long nextOffset() {
        return ObjectWalFormat.offset(nextSequence);
    }

    @Override
    public synchronized long trimOffset() {
        return trimOffset;
    }

    /** Unbounded: object storage has no ring to fill (the stream store's log cache bounds what is not uploaded). */
    @Override
    public long capacity() {
        return Long.MAX_VALUE;
    }

    /** Bytes of the objects not trimmed yet (offsets are sparse: their difference is no size). */
    @Override
    public synchronized long usedBytes() {
        return objects.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public WalStats stats() {
        return stats;
    }

    @Override
    public void close() {
        CompletableFuture<Void> drained;
        synchronized (this) {
            if (failure == null) {
                failure = new WalClosedException("WAL " + prefix + " is closed");
            }
            drained = flush();
        }
        try {
            drained.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("WAL {}: appends still in flight at close", prefix, e);
        }
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }
}
