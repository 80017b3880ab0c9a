package io.aloft.stream.store;

import io.aloft.stream.StreamException;
import io.aloft.stream.cache.LogCache;
import io.aloft.stream.object.UploadThrottle;
import io.aloft.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamStore}'s seal-and-upload pipeline: seals the log cache's active block (by size,
 * age, a closing stream, a flush or shutdown), uploads each sealed block once its appends are
 * durable, commits blocks to metadata strictly in seal order, and after each commit marks the
 * streams' committed ends, trims them and the WAL, frees the block's room and lets waiting appends
 * in.
 *
 * <p>Not thread-safe by itself: the methods that seal run under the store's append lock (so a
 * block's content is the WAL's order); the commit steps run on the upload thread and the
 * object-storage client's threads, and take the lock where they touch sealing state.
 */
final class SealPipeline {
    private static final Logger log = LoggerFactory.getLogger(SealPipeline.class);

    private final StreamStore store;
    private final StreamStoreConfig config;
    private final LogCache logCache;
    private final UploadRetries retries;
    private final UploadPacer pacer;
    private final ScheduledExecutorService scheduler;
    private final WriteAheadLog wal;
    private final LongSupplier clock;
    private final Object appendLock;

    /** Completes when every block sealed so far is committed; guarded by appendLock for chaining. */
    private CompletableFuture<Void> commitChain = CompletableFuture.completedFuture(null);
    /** The seal that closing streams wait for while uploads are in flight (see sealForClose); guarded by appendLock. */
    private CompletableFuture<Void> closeSeal;
    /** Id of the block sealed last, -1 before any; guarded by appendLock. */
    private long lastSealedId = -1;

    SealPipeline(StreamStore store, StreamStoreConfig config, LogCache logCache, UploadRetries retries,
            UploadPacer pacer, ScheduledExecutorService scheduler, WriteAheadLog wal, LongSupplier clock,
            Object appendLock) {
        this.store = store;
        this.config = config;
        this.logCache = logCache;
        this.retries = retries;
        this.pacer = pacer;
        this.scheduler = scheduler;
        this.wal = wal;
        this.clock = clock;
        this.appendLock = appendLock;
    }

    /** Id of the block sealed last, -1 before any. Called under the append lock. */
    long lastSealedId() {
        return lastSealedId;
    }

    /**
     * Seals the active block for a closing stream; completes once everything sealed is committed.
     * While uploads are in flight the seal waits for them, so closes arriving meanwhile share one
     * block instead of a block (object, commit) each: a drain closing a thousand partitions uploads
     * a few objects, not a thousand chained ones. Called under the append lock.
     */
    CompletableFuture<Void> sealForClose() {
        if (commitChain.isDone()) {
            return sealAndUploadNow();
        }
        if (closeSeal == null) {
            CompletableFuture<Void> seal = new CompletableFuture<>();
            closeSeal = seal;
            commitChain.whenCompleteAsync((v, error) -> {
                CompletableFuture<Void> sealed;
                synchronized (appendLock) {
                    if (closeSeal != seal) {
                        return; // close() or abort() took it over
                    }
                    closeSeal = null;
                    sealed = sealAndUploadNow();
                }
                completeWith(seal, sealed);
            }, scheduler);
        }
        return closeSeal;
    }

    /** The store closes: a pending close seal completes with {@code done}. Called under the append lock. */
    void handOverCloseSeal(CompletableFuture<Void> done) {
        if (closeSeal != null) {
            completeWith(closeSeal, done); // this seal holds what those closes wait for
            closeSeal = null;
        }
    }

    /** The store aborts: a pending close seal fails. Called under the append lock. */
    void failCloseSeal(Throwable error) {
        if (closeSeal != null) {
            closeSeal.completeExceptionally(error);
            closeSeal = null;
        }
    }

    static void completeWith(CompletableFuture<Void> target, CompletableFuture<Void> source) {
        source.whenComplete((v, error) -> {
            if (error != null) {
                target.completeExceptionally(error);
            } else {
                target.complete(null);
            }
        });
    }

    /**
     * The periodic task on the upload thread: seals data older than the upload interval. A throw
     * would silently cancel every later run (and with it the age trigger), so an unexpected one
     * fails the store instead.
     */
    void sealIfOldOrFail() {
        try {
            synchronized (appendLock) {
                if (logCache.activeBytes() > 0
                        && clock.getAsLong() - logCache.activeCreatedAtMs() >= config.uploadIntervalMs()) {
                    sealAndUpload();
                }
            }
        } catch (Throwable t) {
            store.fail(new StreamException("the periodic seal of the log cache failed", t));
        }
    }

    /**
     * Seals the active block (if it holds anything) and chains its upload and commit behind the
     * previous ones. Returns a future completing when everything sealed so far is committed.
     * Called under the append lock.
     */
    CompletableFuture<Void> sealAndUpload() {
        long now = clock.getAsLong();
        LogCache.Block block = logCache.seal(now);
        if (block == null) {
            return commitChain;
        }
        lastSealedId = block.id();
        if (store.appendsWaiting()) {
            pacer.hurryThrough(block.id());
        }
        LongFunction<UploadThrottle> throttles = pacer.forBlock(block.id(), now - block.createdAtMs());
        CompletableFuture<BlockUploader.Uploaded> uploaded = block.allConfirmed()
                .thenComposeAsync(v -> retries.upload(block, throttles), scheduler);
        CompletableFuture<Void> chain = commitChain.thenCombine(uploaded, (v, u) -> u)
                .thenCompose(u -> retries.commit(block, u))
                .thenCompose(fenced -> afterCommit(block, fenced));
        // Transient failures never reach here (they are retried); anything that does would stall
        // every later block behind this one, so the store gives up rather than stop uploading quietly.
        chain.whenComplete((v, error) -> {
            if (error != null && !store.stopping()) {
                store.fail(UploadRetries.unwrap(error));
            }
        });
        commitChain = chain;
        return commitChain;
    }

    /**
     * {@link #sealAndUpload()} for a caller that waits for the commit (flush, close, a closing
     * stream): everything sealed so far goes at full speed. Called under the append lock.
     */
    CompletableFuture<Void> sealAndUploadNow() {
        CompletableFuture<Void> committed = sealAndUpload();
        pacer.hurryThrough(lastSealedId);
        return committed;
    }

    private CompletableFuture<Void> afterCommit(LogCache.Block block, Set<Long> fenced) {
        for (long streamId : fenced) {
            S3Stream s = store.stream(streamId);
            if (s != null) {
                s.state(S3Stream.State.FENCED);
            }
        }
        List<CompletableFuture<Void>> trims = new ArrayList<>();
        block.streams().forEach((streamId, batches) -> {
            S3Stream s = store.stream(streamId);
            if (s != null && !fenced.contains(streamId) && !batches.isEmpty()
                    && batches.get(0).epoch() == s.epoch()) {
                s.committedEnd(batches.get(batches.size() - 1).lastOffsetExclusive());
                trims.add(store.applyTrim(s).exceptionally(e -> {
                    log.warn("Trimming {} in metadata failed; retried after the next commit", s, e);
                    return null;
                }));
            }
        });
        logCache.markUploaded(block);
        store.drainWaiting();
        long maxWal = block.maxWalOffset();
        if (maxWal >= 0) {
            // Everything in the WAL up to and including this block's last record is now in objects.
            trims.add(wal.trim(maxWal + 1).exceptionally(error -> {
                log.warn("Trimming the WAL after block {} failed", block.id(), error);
                return null;
            }));
        }
        return CompletableFuture.allOf(trims.toArray(CompletableFuture[]::new));
    }
}
