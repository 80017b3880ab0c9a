package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An {@link ObjectStorage} that passes every call to a real one; tests override the calls they
 * want to delay or fail (a real server cannot be told to fail one request). Thread-safe if the
 * delegate is.
 */
public class ForwardingObjectStorage implements ObjectStorage {
    protected final ObjectStorage delegate;

    public ForwardingObjectStorage(ObjectStorage delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return delegate.put(key, data);
    }

    @Override
    public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
        return delegate.putIfAbsent(key, data);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return delegate.get(key);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive) {
        return delegate.get(key, start, endExclusive);
    }

    @Override
    public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
        return delegate.getParts(key, start, partSizes);
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String key) {
        return delegate.head(key);
    }

    @Override
    public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
        return delegate.createMultipartUpload(key);
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        return delegate.delete(keys);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
        return delegate.list(prefix);
    }

    @Override
    public ObjectStorageStats stats() {
        return delegate.stats();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
