package io.aloft.controller.client;

import io.aloft.controller.command.GetObjectsToDelete;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * s3stream's {@link StreamMetadata} on the controller quorum: every command is replicated, every
 * query is answered from the leader's applied state. Rejections arrive as the same
 * {@link io.aloft.stream.metadata.StreamMetadataException} codes the in-memory implementation
 * gives, so the stream store behaves identically on either.
 */
public final class ControllerStreamMetadata implements StreamMetadata {
    private final ControllerClient client;

    public ControllerStreamMetadata(ControllerClient client) {
        this.client = client;
    }

    @Override
    public CompletableFuture<Long> createStream(CreateStreamRequest request) {
        return client.submit(request, Long.class);
    }

    @Override
    public CompletableFuture<StreamInfo> openStream(OpenStreamRequest request) {
        return client.submit(request, StreamInfo.class);
    }

    @Override
    public CompletableFuture<Void> closeStream(CloseStreamRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> trimStream(TrimStreamRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> deleteStream(DeleteStreamRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Long> prepareObjects(PrepareObjectsRequest request) {
        return client.submit(request, Long.class);
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> commitStreamObject(CommitStreamObjectRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    /**
     * Fails with {@code INVALID_REQUEST} ({@link io.aloft.controller.ControllerException}) while the
     * cluster's finalized feature level is below
     * {@link io.aloft.controller.model.FeatureLevel#KEY_COMPACTION}: the command cannot be encoded.
     */
    @Override
    public CompletableFuture<Void> replaceStreamRange(ReplaceStreamRangeRequest request) {
        return client.submit(request).thenApply(v -> null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<ObjectRef>> getObjects(long streamId, long startOffset, long endOffset, int limit) {
        return client.query(new Queries.GetObjects(streamId, startOffset, endOffset, limit))
                .thenApply(v -> List.copyOf((List<ObjectRef>) v));
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<S3Object>> getStreamSetObjects(int nodeId) {
        return client.query(new Queries.GetStreamSetObjects(nodeId)).thenApply(v -> List.copyOf((List<S3Object>) v));
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<S3Object>> getStreamObjects(long streamId, long startOffset, long endOffset,
            int limit) {
        return client.query(new Queries.GetStreamObjects(streamId, startOffset, endOffset, limit))
                .thenApply(v -> List.copyOf((List<S3Object>) v));
    }

    @Override
    public CompletableFuture<StreamInfo> describeStream(long streamId) {
        return client.query(new Queries.DescribeStream(streamId), StreamInfo.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<S3Object>> getObjectsToDelete(long nowMs, long delayMs) {
        return client.submit(new GetObjectsToDelete(nowMs, delayMs)).thenApply(v -> List.copyOf((List<S3Object>) v));
    }

    @Override
    public CompletableFuture<Void> objectsDeleted(List<Long> objectIds) {
        return client.submit(new ObjectsDeleted(objectIds)).thenApply(v -> null);
    }
}
