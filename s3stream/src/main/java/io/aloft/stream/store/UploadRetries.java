package io.aloft.stream.store;

import io.aloft.stream.StreamException;
import io.aloft.stream.cache.LogCache;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.object.UploadThrottle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads and commits a sealed log-cache block, retrying every {@value #RETRY_BACKOFF_MS} ms until
 * it succeeds, the store stops, or a failure comes that no retry can fix.
 *
 * <p>What is retried, and what is not ({@link #isPermanent}): object-storage failures and
 * outages, and metadata that does not answer, are retried for as long as they last (an outage of
 * S3 or of the controller quorum is not a reason to stop a node; appends wait for log-cache room
 * meanwhile). A commit that metadata <em>rejects</em> as inconsistent ({@code OFFSET_MISMATCH},
 * {@code OBJECT_STATE}, {@code OBJECT_NOT_FOUND}, {@code INVALID_REQUEST}) is permanent: the same
 * request can only be rejected again, and since blocks commit strictly in seal order no later
 * block could commit either. So is an {@link Error} or a runtime exception that signals a broken
 * invariant in this process ({@link IllegalStateException}, {@link IllegalArgumentException},
 * {@link NullPointerException} and the like). Losing a stream's ownership mid-commit
 * ({@code FENCED}, closed or deleted streams) is handled by {@link BlockUploader}, which drops
 * that stream's ranges; a rejection it cannot resolve is retried, as before.
 *
 * <p>During an outage the first failure is logged at WARN with its stack trace, then one line per
 * {@value #WARN_INTERVAL_MS} ms with the count of failures suppressed meanwhile.
 *
 * <p>Thread-safe. Retries are scheduled on the store's {@code aloft-stream-upload} thread.
 */
final class UploadRetries {
    private static final Logger log = LoggerFactory.getLogger(UploadRetries.class);
    static final long RETRY_BACKOFF_MS = 1_000;
    private static final long WARN_INTERVAL_MS = 10_000;

    private final BlockUploader uploader;
    private final ScheduledExecutorService scheduler;
    private final BooleanSupplier stopped;
    private final AtomicLong lastRetryWarnNanos = new AtomicLong();
    private final AtomicLong suppressedRetryWarnings = new AtomicLong();
    /** Whether the last upload or commit attempt failed (and is being retried): an outage is on. */
    private volatile boolean failing;

    /** @param stopped whether to give up retrying (the store failed) */
    UploadRetries(BlockUploader uploader, ScheduledExecutorService scheduler, BooleanSupplier stopped) {
        this.uploader = uploader;
        this.scheduler = scheduler;
        this.stopped = stopped;
    }

    /**
     * Uploads the block's batches; fails only once the store stopped, or with a
     * {@link StreamException} naming the block when a failure is permanent.
     */
    CompletableFuture<BlockUploader.Uploaded> upload(LogCache.Block block) {
        return upload(block, bytes -> UploadThrottle.NONE);
    }

    /**
     * {@link #upload(LogCache.Block)} with each object paced by its throttle; every attempt
     * encodes the objects again from the block's batches, which stay in the log cache until the
     * commit.
     */
    CompletableFuture<BlockUploader.Uploaded> upload(LogCache.Block block, LongFunction<UploadThrottle> throttles) {
        return uploader.upload(block.streams(), throttles).thenApply(this::succeeded).exceptionallyCompose(error -> {
            Throwable cause = unwrap(error);
            if (isPermanent(cause)) {
                return CompletableFuture.failedFuture(new StreamException("uploading log cache block " + block.id()
                        + " failed, and retrying cannot fix it", cause));
            }
            if (stopped.getAsBoolean()) {
                return CompletableFuture.failedFuture(cause);
            }
            failing = true;
            warnRateLimited("Uploading log cache block " + block.id() + " failed; retrying every "
                    + RETRY_BACKOFF_MS + " ms", cause);
            return delay().thenCompose(v -> upload(block, throttles));
        });
    }

    /** Commits an upload of the block; fails as {@link #upload} does. */
    CompletableFuture<Set<Long>> commit(LogCache.Block block, BlockUploader.Uploaded uploaded) {
        return uploader.commit(uploaded).thenApply(this::succeeded).exceptionallyCompose(error -> {
            Throwable cause = unwrap(error);
            if (isPermanent(cause)) {
                return CompletableFuture.failedFuture(new StreamException("committing log cache block " + block.id()
                        + " was refused, and retrying cannot fix it", cause));
            }
            if (stopped.getAsBoolean()) {
                return CompletableFuture.failedFuture(cause);
            }
            failing = true;
            warnRateLimited("Committing log cache block " + block.id() + " failed; retrying every "
                    + RETRY_BACKOFF_MS + " ms", cause);
            return delay().thenCompose(v -> commit(block, uploaded));
        });
    }

    /**
     * Whether uploads are failing now: the last upload or commit attempt failed and is retried
     * (object storage or metadata down), until an attempt succeeds.
     */
    boolean failing() {
        return failing;
    }

    private <T> T succeeded(T result) {
        failing = false;
        return result;
    }

    /** Whether retrying the same upload or commit can never succeed (see the class comment). */
    static boolean isPermanent(Throwable cause) {
        if (cause instanceof Error) {
            return true;
        }
        if (cause instanceof StreamMetadataException e) {
            return switch (e.code()) {
                case OFFSET_MISMATCH, OBJECT_NOT_FOUND, OBJECT_STATE, INVALID_REQUEST -> true;
                case FENCED, STREAM_NOT_OPEN, STREAM_NOT_FOUND -> false;
            };
        }
        // Invariants of this process; storage and metadata report their own failures otherwise
        // (ObjectStorageException, I/O errors, an unanswered controller), all of which may pass.
        // A closed ObjectStorage also answers IllegalStateException: storage closed under an open
        // store is as final.
        return cause instanceof IllegalStateException || cause instanceof IllegalArgumentException
                || cause instanceof NullPointerException || cause instanceof IndexOutOfBoundsException
                || cause instanceof ClassCastException || cause instanceof ArithmeticException
                || cause instanceof UnsupportedOperationException;
    }

    private void warnRateLimited(String message, Throwable error) {
        long now = System.nanoTime();
        long last = lastRetryWarnNanos.get();
        if (last != 0 && now - last < TimeUnit.MILLISECONDS.toNanos(WARN_INTERVAL_MS)) {
            suppressedRetryWarnings.incrementAndGet();
            log.debug("{}: {}", message, error.toString());
            return;
        }
        if (!lastRetryWarnNanos.compareAndSet(last, now)) {
            suppressedRetryWarnings.incrementAndGet();
            return;
        }
        long suppressed = suppressedRetryWarnings.getAndSet(0);
        if (last == 0) {
            log.warn(message, error);
        } else {
            log.warn("{}: {} ({} similar failures in the last {} ms)", message, error.toString(), suppressed,
                    WARN_INTERVAL_MS);
        }
    }

    private CompletableFuture<Void> delay() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        scheduler.schedule(() -> f.complete(null), RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
        return f;
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
