package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A flat key → bytes object store: S3 or a local directory, chosen by {@link ObjectStorages#open}.
 *
 * <p><b>Thread-safety:</b> implementations are thread-safe; any number of calls may be in flight
 * at once. Futures usually complete on a storage-owned thread, so dependent stages must not
 * block for long.
 *
 * <p><b>Buffers:</b> a method that takes a {@link ByteBuffer} borrows its remaining bytes
 * (position to limit) until the returned future completes: the caller keeps ownership, must not
 * modify those bytes before completion, and the storage never moves the buffer's position or
 * limit. A returned buffer belongs to the caller: a fresh heap buffer with position 0 and limit
 * equal to the byte count.
 *
 * <p><b>Errors:</b> futures complete exceptionally with {@link ObjectNotFoundException} when the
 * key does not exist and {@link ObjectStorageException} for every other storage failure (after
 * the backend's retries). Invalid arguments (a negative range, an empty key) throw
 * {@link IllegalArgumentException} from the call itself. Calls after {@link #close()} complete
 * exceptionally with {@link IllegalStateException}.
 *
 * <p><b>Consistency:</b> read-after-write and list-after-write, as S3 has offered since 2020:
 * once a put's future completes, every get, head and list sees the object.
 */
public interface ObjectStorage extends AutoCloseable {

    /**
     * Writes the buffer's remaining bytes as the whole object {@code key}, replacing any previous
     * object atomically: readers see the old or the new bytes, never a mix.
     */
    CompletableFuture<Void> put(String key, ByteBuffer data);

    /**
     * Writes {@code body} as the whole object {@code key}, as {@link #put(String, ByteBuffer)} does
     * (one request, replacing atomically), reading the body as it goes: the bytes need not exist
     * all at once, and the body may pace them. The request is counted as one PUT of
     * {@link PutBody#length()} bytes; a retried attempt reads a new pass of the body. Fails with
     * {@link IllegalStateException} if a pass produces other than {@code length()} bytes, and
     * nothing is written then.
     *
     * <p>This default reads the body into one buffer first; backends that can send while they
     * read override it.
     */
    default CompletableFuture<Void> put(String key, PutBody body) {
        return PutBodies.readAll(body).thenCompose(data -> put(key, data));
    }

    /**
     * Writes the buffer's remaining bytes as object {@code key} only if no object has that key: a
     * conditional write (S3's {@code If-None-Match: *}). Of two writers racing for one key exactly
     * one succeeds; the future completes with {@code false} (nothing written) for the other, and
     * for a key that existed before. This is what fences a writer that lost its claim on a key
     * range (a WAL writer whose log another broker took over).
     */
    CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data);

    /**
     * Reads the whole object. Limited to objects under 2 GiB; read bigger ones by range.
     */
    CompletableFuture<ByteBuffer> get(String key);

    /**
     * Reads bytes {@code [start, endExclusive)} of an object.
     *
     * <p>A range reaching past the end of the object is cut at the end, so the result may be
     * shorter than asked for, and is empty when {@code start >= size}. An empty range
     * ({@code start == endExclusive}) completes with an empty buffer without a request, and so
     * without checking that the object exists.
     *
     * @throws IllegalArgumentException if {@code start < 0}, {@code endExclusive < start}, or the
     *     range is 2 GiB or longer
     */
    CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive);

    /**
     * Reads bytes {@code [start, start + sum(partSizes))} of an object with one request, as one
     * buffer per part: part {@code i} holds the {@code partSizes[i]} bytes after those of the parts
     * before it. Each part is a heap buffer of its own, backed by an array of exactly its size (never
     * a view of a shared one), so whoever keeps one part keeps only its bytes: a reader of several
     * data blocks with one GET caches each block without pinning the others.
     *
     * <p>A range reaching past the end of the object is cut there, as {@link #get(String, long,
     * long)} cuts it: the part holding the end is shorter than asked for and the parts after it
     * are empty. The default implementation reads one buffer and copies it into the parts.
     *
     * @param partSizes the parts' sizes, each {@code >= 0}; not kept
     * @throws IllegalArgumentException if {@code start < 0}, a size is negative, or the parts add up
     *     to 2 GiB or more
     */
    default CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
        long end = start + PartSizes.total(start, partSizes);
        return get(key, start, end).thenApply(whole -> PartSizes.split(whole, partSizes));
    }

    /** Size and key of an object: one HEAD request. */
    CompletableFuture<ObjectInfo> head(String key);

    /** Size of an object in bytes: one HEAD request. */
    default CompletableFuture<Long> size(String key) {
        return head(key).thenApply(ObjectInfo::size);
    }

    /**
     * Starts a multipart upload of {@code key}. Nothing is visible under the key until
     * {@link MultipartUpload#complete()} succeeds. An upload that is never completed or aborted
     * leaves parts behind that cost storage (on S3, until a lifecycle rule removes them).
     */
    CompletableFuture<MultipartUpload> createMultipartUpload(String key);

    /**
     * Deletes the objects. Keys that do not exist are not an error. Issued as one request per
     * 1,000 keys (S3 DeleteObjects' limit); a failure part-way leaves earlier chunks deleted.
     */
    CompletableFuture<Void> delete(Collection<String> keys);

    /**
     * All objects whose key starts with {@code prefix} (empty prefix: all objects), sorted by
     * key, fetching as many pages as needed. Large listings are held in memory; use prefixes.
     */
    CompletableFuture<List<ObjectInfo>> list(String prefix);

    /** Request, byte, failure and retry counters of this storage since it was opened. */
    ObjectStorageStats stats();

    /**
     * Releases connections and threads. Idempotent. Operations already in flight may complete
     * or fail; new ones fail with {@link IllegalStateException}.
     */
    @Override
    void close();
}
