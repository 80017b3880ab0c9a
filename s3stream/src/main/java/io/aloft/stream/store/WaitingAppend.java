package io.aloft.stream.store;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * An append waiting for room in the log cache (see {@link StreamStore}): its own copy of the
 * payload, and the future its caller holds. Externally synchronized: guarded by the store's
 * append lock.
 */
final class WaitingAppend {
    final S3Stream stream;
    final ByteBuffer payload;
    final int count;
    final CompletableFuture<Long> future;
    ScheduledFuture<?> timeout;

    WaitingAppend(S3Stream stream, ByteBuffer payload, int count, CompletableFuture<Long> future) {
        this.stream = stream;
        this.payload = payload;
        this.count = count;
        this.future = future;
    }
}
