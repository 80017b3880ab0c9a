package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A test-only {@link ObjectStorage} in a concurrent map, for tests that need storage semantics
 * but not a server or disk. Thread-safe. Futures complete on the calling thread before the
 * method returns. Stores copies, so callers keep their buffers; every get returns a fresh copy.
 * Counts requests like S3 would bill them, as the real backends do.
 */
public final class MemoryObjectStorage implements ObjectStorage {

    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private final Map<String, Map<Integer, byte[]>> uploads = new ConcurrentHashMap<>();
    private final ObjectStorageStats stats = new ObjectStorageStats();
    private final int listPageSize;
    private final AtomicBoolean closed = new AtomicBoolean();

    public MemoryObjectStorage() {
        this(ObjectStorageOptions.LIST_PAGE_SIZE_DEFAULT);
    }

    public MemoryObjectStorage(int listPageSize) {
        this.listPageSize = listPageSize;
    }

    @Override
    public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
        S3ObjectStorage.checkKey(key);
        byte[] copy = copy(data);
        return call(Operation.PUT, key, () -> {
            boolean written = objects.putIfAbsent(key, copy) == null;
            if (written) {
                stats.recordBytes(Operation.PUT, copy.length);
            }
            return written;
        });
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        S3ObjectStorage.checkKey(key);
        byte[] copy = copy(data);
        return call(Operation.PUT, key, () -> {
            objects.put(key, copy);
            stats.recordBytes(Operation.PUT, copy.length);
            return null;
        });
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return get(key, 0, Integer.MAX_VALUE - 16);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive) {
        S3ObjectStorage.checkKey(key);
        S3ObjectStorage.checkRange(start, endExclusive);
        if (start == endExclusive) {
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        }
        return call(Operation.GET, key, () -> {
            byte[] data = require(Operation.GET, key);
            int from = (int) Math.min(start, data.length);
            int to = (int) Math.min(endExclusive, data.length);
            ByteBuffer result = ByteBuffer.allocate(to - from).put(data, from, to - from).flip();
            stats.recordBytes(Operation.GET, result.remaining());
            return result;
        });
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String key) {
        S3ObjectStorage.checkKey(key);
        return call(Operation.HEAD, key, () -> new ObjectInfo(key, require(Operation.HEAD, key).length));
    }

    @Override
    public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
        S3ObjectStorage.checkKey(key);
        return call(Operation.MULTIPART_CREATE, key, () -> {
            String id = UUID.randomUUID().toString();
            uploads.put(id, new ConcurrentHashMap<>());
            return new MemoryMultipartUpload(key, id);
        });
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        List<String> unique = new ArrayList<>(new LinkedHashSet<>(keys));
        unique.forEach(S3ObjectStorage::checkKey);
        for (int from = 0; from < unique.size(); from += S3ObjectStorage.DELETE_BATCH) {
            List<String> chunk = unique.subList(from, Math.min(unique.size(), from + S3ObjectStorage.DELETE_BATCH));
            CompletableFuture<Void> done = call(Operation.DELETE, null, () -> {
                chunk.forEach(objects::remove);
                return null;
            });
            if (done.isCompletedExceptionally()) {
                return done;
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<ObjectInfo> out = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            out.add(new ObjectInfo(e.getKey(), e.getValue().length));
        }
        int pages = Math.max(1, (out.size() + listPageSize - 1) / listPageSize);
        for (int i = 1; i < pages; i++) {
            stats.recordRequest(Operation.LIST);
        }
        return call(Operation.LIST, prefix, () -> out);
    }

    @Override
    public ObjectStorageStats stats() {
        return stats;
    }

    @Override
    public void close() {
        closed.set(true);
    }

    /** Number of objects stored: handy for leak checks in tests. */
    public int objectCount() {
        return objects.size();
    }

    /** Number of multipart uploads neither completed nor aborted. */
    public int openUploads() {
        return uploads.size();
    }

    private byte[] require(Operation operation, String key) {
        byte[] data = objects.get(key);
        if (data == null) {
            throw new ObjectNotFoundException(operation, key, null);
        }
        return data;
    }

    private <T> CompletableFuture<T> call(Operation operation, String key, java.util.function.Supplier<T> body) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("MemoryObjectStorage is closed"));
        }
        stats.recordRequest(operation);
        try {
            return CompletableFuture.completedFuture(body.get());
        } catch (ObjectStorageException e) {
            stats.recordFailure(operation);
            return CompletableFuture.failedFuture(e);
        }
    }

    private static byte[] copy(ByteBuffer data) {
        ByteBuffer view = data.duplicate();
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        return copy;
    }

    private final class MemoryMultipartUpload extends BaseMultipartUpload {
        private final String id;

        MemoryMultipartUpload(String key, String id) {
            super(key);
            this.id = id;
        }

        @Override
        CompletableFuture<String> sendPart(int partNumber, ByteBuffer data) {
            byte[] copy = copy(data);
            return call(Operation.MULTIPART_PART, key(), () -> {
                Map<Integer, byte[]> parts = uploads.get(id);
                if (parts == null) {
                    throw new ObjectStorageException(Operation.MULTIPART_PART, key(), "NoSuchUpload", null);
                }
                parts.put(partNumber, copy);
                stats.recordBytes(Operation.MULTIPART_PART, copy.length);
                return String.valueOf(partNumber);
            });
        }

        @Override
        CompletableFuture<Void> sendComplete(NavigableMap<Integer, Part> parts) {
            return call(Operation.MULTIPART_COMPLETE, key(), () -> {
                Map<Integer, byte[]> data = uploads.remove(id);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (Integer number : parts.keySet()) {
                    out.writeBytes(data.get(number));
                }
                objects.put(key(), out.toByteArray());
                return null;
            });
        }

        @Override
        CompletableFuture<Void> sendAbort() {
            return call(Operation.MULTIPART_ABORT, key(), () -> {
                uploads.remove(id);
                return null;
            });
        }
    }
}
