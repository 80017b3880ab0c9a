package io.aloft.stream.compaction;

import io.aloft.stream.BlockingWait;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/** Blocking waits for the compaction thread, which may block: it does nothing else. Stateless. */
final class Await {
    private Await() {
    }

    /**
     * The future's value. Interruptible (so closing the manager stops a round), unlike
     * {@link CompletableFuture#join()}.
     *
     * @throws RuntimeException the future's failure, unwrapped if it is unchecked; a
     *     {@link CancellationException} if the thread is interrupted (the interrupt is kept)
     */
    static <T> T of(CompletableFuture<T> future) {
        try {
            return BlockingWait.get(future);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting: the compaction manager is closing");
        }
    }
}
