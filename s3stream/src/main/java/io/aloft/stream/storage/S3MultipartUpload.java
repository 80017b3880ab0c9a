package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** A multipart upload on S3. Thread-safe (see {@link BaseMultipartUpload}). */
final class S3MultipartUpload extends BaseMultipartUpload {

    private final S3ObjectStorage storage;
    private final String uploadId;

    S3MultipartUpload(S3ObjectStorage storage, String key, String uploadId) {
        super(key);
        this.storage = storage;
        this.uploadId = uploadId;
    }

    @Override
    CompletableFuture<String> sendPart(int partNumber, ByteBuffer data) {
        long size = data.remaining();
        return storage.call(Operation.MULTIPART_PART, key(), () -> storage.client().uploadPart(
                        r -> r.bucket(storage.location().bucket()).key(key()).uploadId(uploadId)
                                .partNumber(partNumber).contentLength(size),
                        AsyncRequestBody.fromRemainingByteBufferUnsafe(data)))
                .thenApply(r -> {
                    storage.stats().recordBytes(Operation.MULTIPART_PART, size);
                    return r.eTag();
                });
    }

    @Override
    CompletableFuture<Void> sendComplete(NavigableMap<Integer, Part> parts) {
        List<CompletedPart> completed = new ArrayList<>(parts.size());
        for (Map.Entry<Integer, Part> e : parts.entrySet()) {
            // Number and ETag only: a part checksum here is rejected when the upload was
            // created without a checksum algorithm (versitygw, and AWS itself).
            completed.add(CompletedPart.builder().partNumber(e.getKey()).eTag(e.getValue().tag()).build());
        }
        return storage.call(Operation.MULTIPART_COMPLETE, key(), () -> storage.client().completeMultipartUpload(
                        r -> r.bucket(storage.location().bucket()).key(key()).uploadId(uploadId)
                                .multipartUpload(m -> m.parts(completed))))
                .thenApply(r -> null);
    }

    @Override
    CompletableFuture<Void> sendAbort() {
        return storage.call(Operation.MULTIPART_ABORT, key(), () -> storage.client().abortMultipartUpload(
                        r -> r.bucket(storage.location().bucket()).key(key()).uploadId(uploadId))
                .handle((r, error) -> {
                    // Already gone (aborted elsewhere, or expired by a lifecycle rule): the goal is met.
                    if (error == null || S3ObjectStorage.unwrap(error) instanceof S3Exception s3
                            && "NoSuchUpload".equals(s3.awsErrorDetails() == null ? null
                            : s3.awsErrorDetails().errorCode())) {
                        return null;
                    }
                    throw error instanceof CompletionException c ? c : new CompletionException(error);
                }));
    }

    @Override
    public String toString() {
        return super.toString() + "@" + storage.location().bucket() + "/" + uploadId;
    }
}
