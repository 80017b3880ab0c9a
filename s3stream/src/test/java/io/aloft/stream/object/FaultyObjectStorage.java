package io.aloft.stream.object;

import io.aloft.stream.storage.MultipartUpload;
import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageException;
import io.aloft.stream.storage.ObjectStorageStats;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Delegates to a real storage, but can fail one part number of every multipart upload, and
 * counts down a latch per part sent (so a test can wait for parts without sleeping).
 */
final class FaultyObjectStorage extends ForwardingObjectStorage {

    private final int failPart;
    final CountDownLatch partsSent;

    /** @param failPart part number to fail, or 0 for none */
    FaultyObjectStorage(ObjectStorage delegate, int failPart, int partsToCount) {
        super(delegate);
        this.failPart = failPart;
        this.partsSent = new CountDownLatch(partsToCount);
    }

    @Override
    public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
        return delegate.createMultipartUpload(key).thenApply(upload -> new MultipartUpload() {
            @Override
            public String key() {
                return upload.key();
            }

            @Override
            public CompletableFuture<Void> uploadPart(int partNumber, ByteBuffer data) {
                partsSent.countDown();
                if (partNumber == failPart) {
                    return CompletableFuture.failedFuture(new ObjectStorageException(
                            ObjectStorageStats.Operation.MULTIPART_PART, key, "injected failure", null));
                }
                return upload.uploadPart(partNumber, data);
            }

            @Override
            public CompletableFuture<Void> complete() {
                return upload.complete();
            }

            @Override
            public CompletableFuture<Void> abort() {
                return upload.abort();
            }
        });
    }

}
