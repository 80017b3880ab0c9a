package io.aloft.stream;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Waiting for a future on a thread whose job is to block (compaction, range rewrites, the broker's
 * log cleaner): {@link CompletableFuture#get()}, which an interrupt ends (unlike
 * {@link CompletableFuture#join()}), with the future's failure unwrapped. Stateless.
 */
public final class BlockingWait {
    private BlockingWait() {
    }

    /**
     * The future's value.
     *
     * @throws RuntimeException the future's failure itself if unchecked (an {@link Error} likewise),
     *     else wrapped in an {@link IllegalStateException}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public static <T> T get(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }
}
