package io.aloft.broker.txn;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;

/**
 * A {@link ProducerIdSource} over an asynchronous supplier of ids, such as
 * {@code ProducerIdManager::nextId} (which answers at once from its block and waits for the
 * controller only when the block is used up). It keeps one request in flight: an id that is ready
 * is handed out and the next one asked for; one still coming is answered with
 * COORDINATOR_LOAD_IN_PROGRESS, so a shard thread never waits for the controller. A failed request
 * is answered the same way (the client retries) and asked again at the next call. Thread-safe: the pending request is guarded by this.
 */
public final class PrefetchingProducerIdSource implements ProducerIdSource {

    private final Supplier<CompletableFuture<Long>> ids;
    private CompletableFuture<Long> pending;

    public PrefetchingProducerIdSource(Supplier<CompletableFuture<Long>> ids) {
        this.ids = ids;
    }

    @Override
    public synchronized long nextProducerId() {
        if (pending == null || pending.isCompletedExceptionally() || pending.isCancelled()) {
            pending = ids.get();
        }
        if (!pending.isDone()) {
            throw new CoordinatorLoadInProgressException("waiting for a block of producer ids");
        }
        if (pending.isCompletedExceptionally()) {
            // Retriable for the client; the next call asks again (no loop here: the controller may be down).
            CoordinatorLoadInProgressException e = new CoordinatorLoadInProgressException(
                    "could not get a block of producer ids");
            pending.exceptionally(cause -> {
                e.initCause(cause);
                return null;
            });
            throw e;
        }
        long id = pending.join();
        pending = ids.get(); // usually answered at once from the current block
        return id;
    }
}
