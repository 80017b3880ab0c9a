package io.aloft.stream.metadata;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@link StreamMetadata} held in memory, for the stream store's tests and the embedded single-node
 * setup before the controller exists. All logic lives in {@link StreamMetadataState}; this class
 * only serialises calls on one lock and returns futures that are already complete (a rejected
 * command as a future failed with {@link StreamMetadataException}).
 *
 * <p>Thread-safe.
 */
public final class MemoryStreamMetadata implements StreamMetadata {

    private final Object lock = new Object();
    // Guarded by lock.
    private final StreamMetadataState state;

    /** Empty metadata. */
    public MemoryStreamMetadata() {
        this(new StreamMetadataState());
    }

    /** Metadata restored from a snapshot (for example one taken from another instance). */
    public MemoryStreamMetadata(StreamMetadataSnapshot snapshot) {
        this(StreamMetadataState.restore(snapshot));
    }

    private MemoryStreamMetadata(StreamMetadataState state) {
        this.state = state;
    }

    @Override
    public CompletableFuture<Long> createStream(CreateStreamRequest request) {
        return call(() -> state.createStream(request));
    }

    @Override
    public CompletableFuture<StreamInfo> openStream(OpenStreamRequest request) {
        return call(() -> state.openStream(request));
    }

    @Override
    public CompletableFuture<Void> closeStream(CloseStreamRequest request) {
        return run(() -> state.closeStream(request));
    }

    @Override
    public CompletableFuture<Void> trimStream(TrimStreamRequest request) {
        return run(() -> state.trimStream(request));
    }

    @Override
    public CompletableFuture<Void> deleteStream(DeleteStreamRequest request) {
        return run(() -> state.deleteStream(request));
    }

    @Override
    public CompletableFuture<Long> prepareObjects(PrepareObjectsRequest request) {
        return call(() -> state.prepareObjects(request));
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
        return run(() -> state.commitStreamSetObject(request));
    }

    @Override
    public CompletableFuture<Void> commitStreamObject(CommitStreamObjectRequest request) {
        return run(() -> state.commitStreamObject(request));
    }

    @Override
    public CompletableFuture<Void> replaceStreamRange(ReplaceStreamRangeRequest request) {
        return run(() -> state.replaceStreamRange(request));
    }

    @Override
    public CompletableFuture<List<ObjectRef>> getObjects(long streamId, long startOffset, long endOffset, int limit) {
        return call(() -> state.getObjects(streamId, startOffset, endOffset, limit));
    }

    @Override
    public CompletableFuture<List<S3Object>> getStreamSetObjects(int nodeId) {
        return call(() -> state.getStreamSetObjects(nodeId));
    }

    @Override
    public CompletableFuture<List<S3Object>> getStreamObjects(long streamId, long startOffset, long endOffset,
            int limit) {
        return call(() -> state.getStreamObjects(streamId, startOffset, endOffset, limit));
    }

    @Override
    public CompletableFuture<StreamInfo> describeStream(long streamId) {
        return call(() -> state.describeStream(streamId));
    }

    @Override
    public CompletableFuture<List<S3Object>> getObjectsToDelete(long nowMs, long delayMs) {
        return call(() -> state.getObjectsToDelete(nowMs, delayMs));
    }

    @Override
    public CompletableFuture<Void> objectsDeleted(List<Long> objectIds) {
        return run(() -> state.objectsDeleted(objectIds));
    }

    /** The whole state as plain values, taken atomically. */
    public StreamMetadataSnapshot snapshot() {
        synchronized (lock) {
            return state.snapshot();
        }
    }

    /** The canonical text form of the state, taken atomically. */
    public String dump() {
        return snapshot().dump();
    }

    /** Fails if the state's indexes are inconsistent (tests). */
    void checkConsistency() {
        synchronized (lock) {
            state.checkConsistency();
        }
    }

    private <T> CompletableFuture<T> call(Supplier<T> command) {
        try {
            T result;
            synchronized (lock) {
                result = command.get();
            }
            return CompletableFuture.completedFuture(result);
        } catch (RuntimeException e) {
            // Rejections travel in the future, as they would from a remote controller.
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Void> run(Runnable command) {
        return call(() -> {
            command.run();
            return null;
        });
    }
}
