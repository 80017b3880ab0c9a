package io.aloft.stream.store;

import io.aloft.config.ConfigException;
import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamException;
import io.aloft.stream.StreamFencedException;
import io.aloft.stream.StreamOffsetOutOfRangeException;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.StreamStoreFullException;
import io.aloft.stream.cache.LogCache;
import io.aloft.stream.compaction.CompactionManager;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.TrimStreamRequest;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams on a write-ahead log and object storage.
 *
 * <h2>Write path</h2>
 * An append takes the stream's next offsets, enters the log cache and is written to the WAL, all
 * under one lock so the cache's order is the WAL's order; it is acknowledged once it and every
 * earlier append of its stream are durable, on the stream's acknowledgement thread (see Threads).
 * The cache's active block is sealed by size
 * ({@code s3.wal.upload.threshold.bytes}), age ({@code s3.wal.upload.interval.ms}), a stream's
 * close (once the uploads in flight are done, so closes arriving together share a block), or
 * shutdown; a sealed block is uploaded once all its appends are durable, and blocks
 * are committed to metadata strictly in seal order ({@link SealPipeline}). An upload is encoded block by block as it goes
 * out, paced to the rate the block filled at ({@link UploadPacer}), so a seal is not one burst of
 * CPU and disk work beside the appends; pacing is lifted when appends wait for room, and for
 * flushes and closes. After a commit the WAL is trimmed past the
 * block and the block becomes evictable.
 *
 * <h2>Read path</h2>
 * Reads at the tail come from the log cache; older data from objects (see {@link ObjectFetcher}).
 *
 * <h2>Compaction</h2>
 * A {@link CompactionManager} merges this node's small stream-set objects and each open stream's
 * small stream objects, and deletes objects released by compaction and trims after a delay.
 *
 * <h2>Recovery</h2>
 * On open, WAL records not yet committed (per metadata's stream end offsets, and still owned with
 * the same epoch) are uploaded and committed, then the WAL is reset.
 *
 * <h2>Giving up</h2>
 * The store fails as a whole, once, when it cannot continue: a WAL append failed (the WAL is then
 * unusable), an upload or commit failed permanently (see {@link UploadRetries}: outages are
 * retried, inconsistencies and broken invariants are not), or a step of the upload pipeline or the
 * periodic seal threw unexpectedly (blocks commit in order, so one stuck block would stall every
 * later one). Every pending and later append then fails, nothing more is uploaded, and the
 * {@link StreamStoreFailureListener} hears of it. The store's threads carry the given uncaught
 * exception handler. {@link #abort()} stops without uploading, for a node that is stopping after
 * a failure elsewhere.
 *
 * <h2>Threads</h2>
 * Thread-safe: appends, fetches and closes come from any thread. {@code appendLock} makes offset
 * assignment, log-cache order and WAL order one order. The WAL's completion thread only hands each
 * durable append over to the stream's acknowledgement thread ({@link AckThreads}: a few
 * {@code aloft-stream-ack-<n>} threads, each stream always on the same one), which confirms it in
 * the log cache and completes the stream's appends in order; whatever callers chain on an
 * append's future runs there too, never on the WAL's thread. Catch-up reads continue on
 * {@link CatchUpReads}' threads; uploads are orchestrated on the {@code aloft-stream-upload}
 * thread.
 *
 * <p>The store does not own the WAL, object storage or metadata passed in; the caller closes them
 * after {@link #close()}.
 */
public final class StreamStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StreamStore.class);

    /** {@link #admits} keeps 1/this of the log-cache budget as headroom. */
    static final int ADMISSION_SHARE_DIVISOR = 8;

    private final StreamStoreConfig config;
    private final WriteAheadLog wal;
    private final StreamMetadata metadata;
    private final LongSupplier clock;
    private final LogCache logCache;
    private final BlockUploader uploader;
    private final UploadRetries retries;
    private final UploadPacer pacer;
    private final StreamStoreFailureListener failureListener;
    private final ObjectFetcher fetcher;
    private final StreamStoreStats stats = new StreamStoreStats();
    private final CatchUpReads catchUpReads;
    private final ObjectStorage storage;
    private final CompactionManager compaction;
    private final ScheduledExecutorService scheduler;
    private final AckThreads acks;
    private final Object appendLock = new Object();
    private final Map<Long, S3Stream> streams = new ConcurrentHashMap<>();
    /** Appends waiting for log-cache room, oldest first; guarded by appendLock. */
    private final java.util.ArrayDeque<WaitingAppend> waiting = new java.util.ArrayDeque<>();
    /** Seals, uploads and commits the log cache's blocks; its sealing runs under appendLock. */
    private final SealPipeline seals;
    private final Object failLock = new Object();
    /** Set once, under failLock; read without it. */
    private volatile Throwable failure;
    /** Completes when {@link #failure} is set. */
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile boolean closed;

    private StreamStore(StreamStoreBuilder b) {
        this.config = b.config;
        this.wal = b.wal;
        this.metadata = b.metadata;
        this.clock = b.clock;
        this.failureListener = b.failureListener;
        this.logCache = new LogCache(config.logCacheSizeBytes(), clock.getAsLong());
        this.fetcher = new ObjectFetcher(b.storage, metadata, config.blockCacheSizeBytes(),
                b.uncaughtExceptionHandler, clock, config.compaction().deleteDelayMs(), stats);
        this.storage = b.storage;
        this.compaction = new CompactionManager(config.compaction(), b.storage, metadata,
                () -> List.copyOf(streams.keySet()), clock, b.uncaughtExceptionHandler);
        Thread.UncaughtExceptionHandler handler = b.uncaughtExceptionHandler;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aloft-stream-upload");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(handler);
            return t;
        });
        // Seals' blocks are encoded on the upload thread, as whole seals were before.
        this.uploader = new BlockUploader(config, b.storage, metadata, clock, scheduler, stats);
        stats.levels(logCache::totalBytes, logCache::unuploadedBytes, fetcher::cachedBytes, streams::size,
                compaction.stats());
        this.retries = new UploadRetries(uploader, scheduler, () -> failure != null);
        this.catchUpReads = new CatchUpReads(config.catchUpReadThreads(), config.catchUpReadInFlightBytes(),
                config.catchUpReadBytesPerSecond(), System::nanoTime, handler);
        this.pacer = new UploadPacer(config.uploadPacingFactor(), System::nanoTime,
                (task, nanos) -> scheduler.schedule(task, nanos, TimeUnit.NANOSECONDS), this::roomShort);
        this.acks = new AckThreads(AckThreads.defaultCount(), handler);
        this.seals = new SealPipeline(this, config, logCache, retries, pacer, scheduler, wal, clock, appendLock);
    }

    /** Opens the store the builder describes: recovers the WAL, then starts uploads and compaction. */
    static StreamStore open(StreamStoreBuilder b) {
        if (b.config.logCacheSizeBytes() >= b.wal.capacity()) {
            throw new ConfigException(StreamStoreConfig.LOG_CACHE_SIZE_CONFIG, b.config.logCacheSizeBytes()
                    + " is not below the WAL's " + b.wal.capacity() + " bytes (wal.capacity.bytes): data not yet "
                    + "uploaded is held in both");
        }
        StreamStore store = new StreamStore(b);
        new WalRecovery(b.wal, b.metadata, store.uploader).run();
        long interval = b.config.uploadIntervalMs();
        store.scheduler.scheduleWithFixedDelay(store.seals::sealIfOldOrFail, interval, Math.max(1, interval / 4),
                TimeUnit.MILLISECONDS);
        store.compaction.start();
        return store;
    }

    /**
     * A builder for a store on these parts, for hooks beyond the settings (clock, failure
     * listener, thread handler).
     */
    public static StreamStoreBuilder builder(StreamStoreConfig config, WriteAheadLog wal, ObjectStorage storage,
            StreamMetadata metadata) {
        return new StreamStoreBuilder(config, wal, storage, metadata);
    }

    /**
     * Recovers the WAL's uncommitted records into objects, then starts the store (failures are
     * logged; see {@link #builder} to be told of them).
     *
     * @param clock wall-clock milliseconds (injected so tests control time)
     */
    public static StreamStore open(StreamStoreConfig config, WriteAheadLog wal, ObjectStorage storage,
            StreamMetadata metadata, LongSupplier clock) {
        return builder(config, wal, storage, metadata).clock(clock).open();
    }

    public static StreamStore open(StreamStoreConfig config, WriteAheadLog wal, ObjectStorage storage,
            StreamMetadata metadata) {
        return builder(config, wal, storage, metadata).open();
    }

    /** Creates an empty stream in metadata and returns its id. */
    public CompletableFuture<Long> createStream() {
        return metadata.createStream(new CreateStreamRequest(config.nodeId()));
    }

    /**
     * Opens a stream with {@code epoch} (higher than its current one), fencing any earlier owner,
     * including an earlier handle on this node.
     */
    public CompletableFuture<Stream> openStream(long streamId, long epoch) {
        checkUsable();
        return metadata.openStream(new OpenStreamRequest(streamId, epoch, config.nodeId())).thenApply(info -> {
            S3Stream stream = new S3Stream(this, streamId, info.epoch(), info.startOffset(), info.endOffset(),
                    acks.forStream(streamId));
            S3Stream previous = streams.put(streamId, stream);
            if (previous != null) {
                previous.state(S3Stream.State.FENCED);
            }
            // Another owner may have rewritten ranges of it (the log cleaner) since this store last read it.
            fetcher.forgetLookups(streamId);
            return stream;
        });
    }

    CompletableFuture<Long> append(S3Stream stream, ByteBuffer payload, int count) {
        if (count < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("count " + count + " < 1"));
        }
        int size = payload.remaining();
        if (size > config.logCacheSizeBytes()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(StreamStoreConfig.LOG_CACHE_SIZE_CONFIG
                    + ": a batch of " + size + " bytes can never fit in " + config.logCacheSizeBytes()));
        }
        synchronized (appendLock) {
            Throwable unusable = unusable(stream);
            if (unusable != null) {
                return CompletableFuture.failedFuture(unusable);
            }
            if (waiting.isEmpty() && fitsBudget(size)) {
                return place(stream, payload, count);
            }
            // Uploads are behind: wait, in order, for committed data to free the budget.
            WaitingAppend w = new WaitingAppend(stream, ByteBuffer.allocate(size).put(payload.duplicate()).flip(),
                    count, new CompletableFuture<>());
            waiting.addLast(w);
            w.timeout = scheduler.schedule(() -> expire(w), config.appendTimeoutMs(), TimeUnit.MILLISECONDS);
            sealIfUploadsCannotMakeRoom(size);
            pacer.hurryThrough(seals.lastSealedId()); // what is sealed must make room: no pacing it
            return w.future;
        }
    }

    /**
     * Whether to take an append of {@code bytes} now (see {@link Stream#admits}): the store is
     * usable and, while uploads are stalled, no append waits for room and data not yet uploaded
     * stays within the admission limit, {@link #ADMISSION_SHARE_DIVISOR}ths of the log cache short
     * of the full budget. Stalled: the last upload or commit attempt failed (object storage or
     * metadata down: connections refused), or the oldest sealed block has waited for its upload
     * half of s3.append.timeout.ms (object storage not answering). The last share is headroom for
     * appends admitted concurrently and for callers that do not ask (a partition's checkpoints),
     * so an append its caller was told it could make places rather than waits past
     * s3.append.timeout.ms. While uploads keep up every append is admitted, and one that finds the
     * budget full waits for them as before (back-pressure rather than refusals when object storage
     * is merely busy).
     */
    boolean admits(int bytes) {
        if (failure != null || closed) {
            return false;
        }
        if (!uploadsStalled()) {
            return true;
        }
        long budget = config.logCacheSizeBytes();
        long limit = budget - budget / ADMISSION_SHARE_DIVISOR;
        synchronized (appendLock) {
            return waiting.isEmpty() && logCache.unuploadedBytes() + bytes <= limit;
        }
    }

    private boolean uploadsStalled() {
        if (retries.failing()) {
            return true;
        }
        long pendingSince = logCache.oldestPendingSealMs();
        return pendingSince != Long.MAX_VALUE && clock.getAsLong() - pendingSince >= config.appendTimeoutMs() / 2;
    }

    /**
     * An append of {@code size} bytes waits for room. If the blocks already sealed free enough once
     * uploaded, waiting for them is enough; sealing the active block as well would only cut it
     * short and cost one more object (a PUT) per wait. Otherwise the active block holds the rest
     * of the budget without reaching the size trigger: seal and upload it now so room is made.
     * Called under the append lock.
     */
    private void sealIfUploadsCannotMakeRoom(int size) {
        if (logCache.activeBytes() + size > config.logCacheSizeBytes()) {
            seals.sealAndUpload();
        }
    }

    /**
     * Whether log-cache room runs short: the active block could not fill up to the size trigger
     * without appends waiting. Uploads are then not paced (see {@link UploadPacer}).
     */
    private boolean roomShort() {
        return logCache.unuploadedBytes() + config.uploadThresholdBytes() > config.logCacheSizeBytes();
    }

    private boolean fitsBudget(int size) {
        return logCache.unuploadedBytes() + size <= config.logCacheSizeBytes();
    }

    private void expire(WaitingAppend w) {
        synchronized (appendLock) {
            if (!waiting.remove(w)) {
                return;
            }
        }
        w.future.completeExceptionally(new StreamStoreFullException("append to " + w.stream + " waited "
                + config.appendTimeoutMs() + " ms (" + StreamStoreConfig.APPEND_TIMEOUT_CONFIG + ") for room in the "
                + "log cache (" + StreamStoreConfig.LOG_CACHE_SIZE_CONFIG + "=" + config.logCacheSizeBytes()
                + "): uploads to object storage are behind"));
    }

    /** Places waiting appends, in order, while the budget allows. */
    void drainWaiting() {
        synchronized (appendLock) {
            while (!waiting.isEmpty()) {
                WaitingAppend w = waiting.peekFirst();
                Throwable unusable = unusable(w.stream);
                if (unusable == null && !fitsBudget(w.payload.remaining())) {
                    sealIfUploadsCannotMakeRoom(w.payload.remaining());
                    return;
                }
                waiting.pollFirst();
                w.timeout.cancel(false);
                if (unusable != null) {
                    w.future.completeExceptionally(unusable);
                } else {
                    place(w.stream, w.payload, w.count).whenComplete((offset, error) -> {
                        if (error != null) {
                            w.future.completeExceptionally(error);
                        } else {
                            w.future.complete(offset);
                        }
                    });
                }
            }
        }
    }

    /** Assigns offsets, caches and writes the batch. Called under the append lock. */
    private CompletableFuture<Long> place(S3Stream stream, ByteBuffer payload, int count) {
        long base = stream.nextOffset;
        // One copy: the WAL record body, whose payload slice is what the cache keeps.
        ByteBuffer body = WalRecordCodec.encode(
                new StreamRecordBatch(stream.streamId(), stream.epoch(), base, count, payload));
        StreamRecordBatch batch = WalRecordCodec.decode(body.duplicate());
        stream.nextOffset = base + count;
        LogCache.Block block = logCache.put(batch);
        S3Stream.PendingAppend pending = stream.addPending(base, base + count);
        // Async: the WAL's single completion thread only queues this on the stream's own thread.
        wal.append(body).whenCompleteAsync((walOffset, error) -> {
            if (error != null) {
                fail(new StreamException("WAL append failed; the stream store stops", error));
                return;
            }
            logCache.confirm(block, walOffset);
            stream.durable(pending);
        }, stream.acks());
        if (logCache.activeBytes() >= config.uploadThresholdBytes()) {
            seals.sealAndUpload();
        }
        return pending.future;
    }

    private Throwable unusable(S3Stream stream) {
        if (failure != null) {
            return new StreamException("stream store failed", failure);
        }
        if (closed) {
            return new StreamException("stream store is closed");
        }
        if (stream.state() != S3Stream.State.OPEN) {
            return new StreamFencedException(stream + " is not open for appends");
        }
        return null;
    }

    private void checkUsable() {
        if (failure != null) {
            throw new StreamException("stream store failed", failure);
        }
        if (closed) {
            throw new StreamException("stream store is closed");
        }
    }

    CompletableFuture<FetchResult> fetch(S3Stream stream, long from, long to, int maxBytes) {
        long confirmed = stream.confirmOffset();
        if (from < stream.startOffset() || from > confirmed) {
            return CompletableFuture.failedFuture(new StreamOffsetOutOfRangeException("offset " + from
                    + " is outside [" + stream.startOffset() + ", " + confirmed + "] of " + stream));
        }
        long end = Math.min(to, confirmed);
        if (from >= end) {
            return CompletableFuture.completedFuture(new FetchResult(List.of(), true));
        }
        List<StreamRecordBatch> cached = logCache.get(stream.streamId(), from, end, maxBytes);
        if (!cached.isEmpty()) {
            return CompletableFuture.completedFuture(new FetchResult(cached, true));
        }
        long cacheStart = logCache.startOffset(stream.streamId());
        long objectsEnd = cacheStart > from ? Math.min(end, cacheStart) : end;
        // Past the log cache: a catch-up read, within its own budget and on its own threads (CatchUpReads).
        return catchUpReads.read(maxBytes,
                granted -> fetcher.fetch(stream.streamId(), from, objectsEnd, (int) Math.max(1, granted)),
                StreamStore::payloadBytes).thenApply(fetched -> {
            List<StreamRecordBatch> out = new ArrayList<>(fetched.batches());
            long reached = out.isEmpty() ? from : out.get(out.size() - 1).lastOffsetExclusive();
            int bytes = out.stream().mapToInt(StreamRecordBatch::size).sum();
            if (reached < end && bytes < maxBytes && (out.isEmpty() || reached == cacheStart)) {
                out.addAll(logCache.get(stream.streamId(), reached, end, out.isEmpty() ? maxBytes : maxBytes - bytes));
            }
            return new FetchResult(out, fetched.cacheHit());
        });
    }

    private static long payloadBytes(ObjectFetcher.Fetched fetched) {
        long bytes = 0;
        for (StreamRecordBatch b : fetched.batches()) {
            bytes += b.size();
        }
        return bytes;
    }

    CompletableFuture<Void> trim(S3Stream stream, long newStart) {
        if (newStart > stream.confirmOffset()) {
            return CompletableFuture.failedFuture(new StreamOffsetOutOfRangeException("trim to " + newStart
                    + " beyond the confirmed end of " + stream));
        }
        stream.startOffset(newStart);
        return applyTrim(stream);
    }

    /**
     * Writes the stream's start offset to metadata as far as its committed data reaches; the rest
     * follows when the data is committed (metadata never starts a stream past its committed end).
     */
    CompletableFuture<Void> applyTrim(S3Stream stream) {
        long target = Math.min(stream.startOffset(), stream.committedEnd());
        if (target <= stream.metadataStart()) {
            return CompletableFuture.completedFuture(null);
        }
        return metadata.trimStream(new TrimStreamRequest(stream.streamId(), stream.epoch(), target))
                .thenRun(() -> stream.metadataStart(target));
    }

    CompletableFuture<Void> closeStream(S3Stream stream) {
        CompletableFuture<Void> uploaded;
        synchronized (appendLock) {
            if (stream.state() != S3Stream.State.OPEN) {
                return CompletableFuture.completedFuture(null);
            }
            stream.state(S3Stream.State.CLOSING);
            uploaded = seals.sealForClose();
        }
        // Wait until everything appended before the close is durable and committed.
        return uploaded.thenCompose(v -> metadata.closeStream(
                new CloseStreamRequest(stream.streamId(), stream.epoch(), config.nodeId()))).whenComplete((v, e) -> {
                    stream.state(S3Stream.State.CLOSED);
                    streams.remove(stream.streamId(), stream);
                });
    }

    /** Whether appends wait for log-cache room. Called under the append lock. */
    boolean appendsWaiting() {
        return !waiting.isEmpty();
    }

    /** Whether the store failed or is closing: a failing upload is then no news. */
    boolean stopping() {
        return failure != null || closed;
    }

    /** An open stream of this store by id, or null. */
    S3Stream stream(long streamId) {
        return streams.get(streamId);
    }

    /** The store gives up (see the class comment) and tells the listener; only the first call counts. */
    void fail(Throwable error) {
        if (!stop(error)) {
            return;
        }
        if (closed) {
            // Not a failure of a running store: close is already taking it down.
            log.warn("Stream store of node {} failed while closing", config.nodeId(), error);
        } else {
            failureListener.storeFailed(error);
        }
    }

    /** Marks the store failed and fails every pending and waiting append; false if it already was. */
    private boolean stop(Throwable error) {
        synchronized (failLock) {
            if (failure != null) {
                return false;
            }
            failure = error;
        }
        stopped.complete(null);
        streams.values().forEach(s -> s.failPending(error));
        drainWaiting(); // every waiting append now fails: the store is unusable
        return true;
    }

    /**
     * Starts a rewrite of {@code [start, end)} of an open stream of this store (see
     * {@link RangeRewrite}), whose new objects hold at most about {@code maxObjectBytes} each.
     *
     * @throws IllegalArgumentException if the stream is not one of this store's, or the range is
     *     empty, below the stream's start or beyond what this handle knows to be committed
     */
    public RangeRewrite rewriteRange(Stream stream, long start, long end, long maxObjectBytes) {
        checkUsable();
        if (!(stream instanceof S3Stream s) || streams.get(s.streamId()) != s) {
            throw new IllegalArgumentException(stream + " is not open on this store");
        }
        if (start < s.startOffset() || end <= start || end > s.committedEnd() || maxObjectBytes < 1) {
            throw new IllegalArgumentException("cannot rewrite [" + start + ", " + end + ") of " + s
                    + ": committed up to " + s.committedEnd());
        }
        return new RangeRewrite(s, start, end, maxObjectBytes, metadata, storage, logCache, config, clock,
                () -> fetcher.forgetLookups(s.streamId()));
    }

    /** The object reader, for tests in this package. */
    ObjectFetcher fetcher() {
        return fetcher;
    }

    /** Replays WAL records of other brokers through this store's uploader (see {@link WalTakeOverReplay}). */
    WalRecovery replayer() {
        return new WalRecovery(null, metadata, uploader);
    }

    /** Counters, hooks and levels for monitoring. */
    public StreamStoreStats stats() {
        return stats;
    }

    /** Log cache bytes not yet committed to object storage. */
    public long pendingUploadBytes() {
        return logCache.unuploadedBytes();
    }

    /** Seals whatever the log cache holds and waits for it to be committed (for tests and shutdown). */
    public CompletableFuture<Void> flush() {
        synchronized (appendLock) {
            return seals.sealAndUploadNow();
        }
    }

    /**
     * Stops at once, uploading nothing more: pending and waiting appends fail, the upload thread
     * and compaction stop. What was acknowledged but not yet committed stays in the WAL for whoever
     * recovers it next. For a node that stops after a critical failure, whose state is suspect (a
     * graceful {@link #close()} would upload). Not reported to the failure listener. Idempotent;
     * {@link #close()} afterwards does nothing.
     */
    public void abort() {
        synchronized (appendLock) {
            if (closed) {
                return;
            }
            closed = true;
            seals.failCloseSeal(new StreamException("stream store of node " + config.nodeId() + " was aborted"));
        }
        stop(new StreamException("stream store of node " + config.nodeId() + " was aborted"));
        compaction.close();
        catchUpReads.close();
        scheduler.shutdownNow();
        fetcher.close();
        acks.shutdown();
        log.info("Stream store of node {} aborted; uncommitted data stays in the WAL", config.nodeId());
    }

    /**
     * Uploads and commits everything appended so far, then stops. Streams are left open in
     * metadata: the next owner opens them with a higher epoch.
     */
    @Override
    public void close() {
        CompletableFuture<Void> done;
        synchronized (appendLock) {
            if (closed) {
                return;
            }
            closed = true;
            done = seals.sealAndUploadNow();
            seals.handOverCloseSeal(done);
        }
        drainWaiting(); // waiting appends fail: the store is closed
        compaction.close(); // no compaction while shutting down
        try {
            // A failed store uploads nothing more: do not wait for what can never complete (a block
            // holding appends the WAL failed is never confirmed).
            CompletableFuture.anyOf(done, stopped).get(60, TimeUnit.SECONDS);
            if (failure != null) {
                log.warn("Stream store of node {} had failed; what was not committed stays in the WAL",
                        config.nodeId());
            }
        } catch (Exception e) {
            log.warn("Not everything was uploaded before close; the WAL keeps it for recovery", e);
        } finally {
            catchUpReads.close();
            scheduler.shutdownNow();
            fetcher.close();
            acks.shutdown(); // later WAL completions run on the WAL's thread (see AckThreads)
        }
    }
}
