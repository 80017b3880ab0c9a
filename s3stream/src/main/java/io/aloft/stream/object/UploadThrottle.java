package io.aloft.stream.object;

import java.util.concurrent.CompletableFuture;

/**
 * Decides when the next bytes of a {@link StreamedObjectBody} may go to storage: the pace of an
 * upload. Implementations are thread-safe.
 */
@FunctionalInterface
public interface UploadThrottle {

    /** No pacing: every chunk goes at once. */
    UploadThrottle NONE = (offset, bytes) -> CompletableFuture.completedFuture(null);

    /**
     * Completes when the {@code bytes} bytes that follow the first {@code offset} bytes of a pass
     * may be handed to storage. A pass starts at offset 0, so a call with offset 0 starts the
     * clock of a new attempt.
     */
    CompletableFuture<Void> admit(long offset, int bytes);
}
