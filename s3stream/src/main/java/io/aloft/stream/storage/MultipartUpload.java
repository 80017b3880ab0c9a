package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One in-progress multipart upload, created by {@link ObjectStorage#createMultipartUpload}.
 *
 * <p><b>Thread-safety:</b> thread-safe; parts may be uploaded concurrently and in any order.
 * {@link #complete()} and {@link #abort()} must be called after every part's future has
 * completed; a part still in flight makes {@code complete()} fail with
 * {@link IllegalStateException}.
 *
 * <p><b>Buffers:</b> {@link #uploadPart} borrows the buffer's remaining bytes until its future
 * completes (same rules as {@link ObjectStorage#put}).
 *
 * <p><b>Part sizes:</b> every part but the last (by number) must be at least
 * {@link #MIN_PART_SIZE} bytes; S3 enforces it on complete, and so does the file backend, so a
 * layout that works locally also works on S3. Part numbers run from 1 to {@link #MAX_PARTS}
 * and need not be contiguous; uploading a number again replaces that part.
 */
public interface MultipartUpload {

    /** S3's minimum size of every part except the last: 5 MiB. */
    long MIN_PART_SIZE = 5L * 1024 * 1024;

    /** S3's highest part number. */
    int MAX_PARTS = 10_000;

    /** The key the object will have once completed. */
    String key();

    /**
     * Uploads one part.
     *
     * @throws IllegalArgumentException if {@code partNumber} is outside 1..{@link #MAX_PARTS}
     */
    CompletableFuture<Void> uploadPart(int partNumber, ByteBuffer data);

    /**
     * Makes the object visible: the uploaded parts, in part-number order. Fails with
     * {@link IllegalStateException} if no part was uploaded, a part is still in flight, or the
     * upload was already completed or aborted.
     */
    CompletableFuture<Void> complete();

    /**
     * Discards the uploaded parts. Aborting an aborted upload does nothing; aborting a completed
     * one fails with {@link IllegalStateException}.
     */
    CompletableFuture<Void> abort();
}
