package io.aloft.stream.object;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.storage.MultipartUpload;
import io.aloft.stream.storage.ObjectStorage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Encodes one object (layout: {@link ObjectFormat}) straight into an {@link ObjectStorage}
 * under {@link ObjectKeys#key(long)}.
 *
 * <p>Bytes are held in memory until they reach {@link ObjectWriterConfig#multipartThreshold()}.
 * An object that stays below it is written with one put by {@link #finish()}. Once it crosses
 * it, a multipart upload starts and every {@link ObjectWriterConfig#partSize()} bytes go out as
 * a part as soon as they are filled, so memory holds the open block, the part being filled and
 * the parts still in flight (which is bounded only if storage keeps up with the writer).
 * Nothing is visible under the key until {@link #finish()} completes.
 *
 * <p>Batches go in the order {@link ObjectWriter} describes.
 *
 * <p><b>Thread-safety:</b> not thread-safe; confine to one thread or synchronize externally.
 * The futures complete on storage threads.
 *
 * <p><b>Buffers:</b> {@link #write} copies the payload before returning; the caller keeps
 * ownership of the batch.
 */
public final class ObjectUploader {

    private static final int INITIAL_CAPACITY = 256 * 1024;

    private final ObjectStorage storage;
    private final String key;
    private final long multipartThreshold;
    private final int partSize;
    private final ObjectEncoder encoder;

    /** Everything written before the multipart upload starts; null after. */
    private ByteBuffer head;
    /** Started once the object reaches the threshold; null before. */
    private CompletableFuture<MultipartUpload> upload;
    /** The part being filled, once multipart. */
    private ByteBuffer part;
    private int nextPartNumber = 1;
    private final List<CompletableFuture<Void>> parts = new ArrayList<>();
    private State state = State.OPEN;

    private enum State { OPEN, FINISHED, ABORTED }

    private ObjectUploader(ObjectStorage storage, long objectId, ObjectWriterConfig config, long sizeHint) {
        this.storage = storage;
        this.key = ObjectKeys.key(objectId);
        this.multipartThreshold = config.multipartThreshold();
        this.partSize = config.partSize();
        this.encoder = new ObjectEncoder(objectId, config, this::append);
        // The head never needs more than the threshold plus one block before it turns into parts.
        long cap = Math.min(Math.max(INITIAL_CAPACITY, sizeHint), multipartThreshold + config.blockSize());
        this.head = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, cap));
    }

    /**
     * An uploader for object {@code objectId}; no request is made until the object reaches the
     * multipart threshold or is finished.
     *
     * @throws IllegalArgumentException if {@code objectId} is negative
     */
    public static ObjectUploader create(ObjectStorage storage, long objectId, ObjectWriterConfig config) {
        return new ObjectUploader(storage, objectId, config, INITIAL_CAPACITY);
    }

    /**
     * {@link #create(ObjectStorage, long, ObjectWriterConfig)} with the expected encoded size (see
     * {@link #encodedSizeBound}), so the buffer is allocated once at its final size: growing it by
     * doubling allocated and copied about twice the object (large seals made that most of the
     * store's allocation, and GC pauses with it). A wrong hint costs memory or a copy, never data.
     */
    public static ObjectUploader create(ObjectStorage storage, long objectId, ObjectWriterConfig config,
            long sizeHint) {
        return new ObjectUploader(storage, objectId, config, sizeHint);
    }

    /**
     * An upper bound, for batches no larger than half a block, on the encoded size of an object of
     * {@code batches} batches with {@code payloadBytes} bytes of payload over {@code streams}
     * streams: payload and batch headers, block headers and index entries (a block is sealed at
     * least half full, plus one partial block per stream), the index header and the footer.
     */
    public static long encodedSizeBound(long payloadBytes, long batches, int streams, int blockSize) {
        long data = payloadBytes + batches * ObjectFormat.BATCH_HEADER_SIZE;
        long blocks = 2 * data / blockSize + streams + 1;
        return data + blocks * (ObjectFormat.BLOCK_HEADER_SIZE + ObjectFormat.ENTRY_SIZE)
                + ObjectFormat.INDEX_HEADER_SIZE + ObjectFormat.FOOTER_SIZE;
    }

    /**
     * Writes {@code batches} as object {@code objectId} and completes with its summary once it
     * is stored.
     *
     * @throws IllegalArgumentException if the batches are out of order; a multipart upload
     *     already started is aborted in the background
     */
    public static CompletableFuture<ObjectSummary> upload(ObjectStorage storage, long objectId,
            Iterable<StreamRecordBatch> batches, ObjectWriterConfig config) {
        ObjectUploader uploader = create(storage, objectId, config);
        try {
            for (StreamRecordBatch batch : batches) {
                uploader.write(batch);
            }
        } catch (RuntimeException e) {
            uploader.abort();
            throw e;
        }
        return uploader.finish();
    }

    public long objectId() {
        return encoder.objectId();
    }

    /** The storage key the object is written under. */
    public String key() {
        return key;
    }

    /**
     * Adds a batch; may start the multipart upload or upload a part.
     *
     * @throws IllegalArgumentException if the batch breaks the order; nothing is written
     * @throws IllegalStateException after {@link #finish()} or {@link #abort()}
     */
    public void write(StreamRecordBatch batch) {
        checkOpen();
        encoder.write(batch);
    }

    /**
     * Completes once at most {@code maxPending} parts of a multipart upload are still in flight, so
     * a writer faster than storage can bound the memory its parts hold (at once before the
     * multipart upload starts). Failures of parts are not reported here but by {@link #finish()}.
     */
    public CompletableFuture<Void> partsInFlightAtMost(int maxPending) {
        List<CompletableFuture<Void>> pending = parts.stream().filter(f -> !f.isDone()).toList();
        if (pending.size() <= maxPending) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(pending.subList(0, pending.size() - maxPending)
                .toArray(CompletableFuture[]::new)).handle((v, e) -> null);
    }

    /** Bytes encoded so far, not counting the index and footer that {@link #finish()} adds. */
    public long size() {
        return encoder.size();
    }

    /**
     * Writes the index and footer and makes the object visible: one put, or the last part and
     * the multipart completion. If an upload fails, the multipart upload is aborted and the
     * future fails with the storage's exception.
     *
     * @throws IllegalStateException if already finished or aborted
     */
    public CompletableFuture<ObjectSummary> finish() {
        checkOpen();
        ObjectSummary summary = encoder.finish();
        state = State.FINISHED;
        if (upload == null) {
            ByteBuffer data = head.flip();
            head = null;
            return storage.put(key, data).thenApply(v -> summary);
        }
        if (part.position() > 0) {
            sendPart(part.flip());
        }
        part = null;
        CompletableFuture<ObjectSummary> result = new CompletableFuture<>();
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                .thenCompose(v -> upload.thenCompose(MultipartUpload::complete))
                .whenComplete((v, error) -> {
                    if (error == null) {
                        result.complete(summary);
                    } else {
                        Throwable cause = unwrap(error);
                        abortUpload(cause).whenComplete((x, y) -> result.completeExceptionally(cause));
                    }
                });
        return result;
    }

    /**
     * Gives the object up: drops the buffered bytes and aborts the multipart upload, if one was
     * started, once its in-flight parts have settled. The future fails only if the abort request
     * itself fails (parts are then left for the bucket's lifecycle rule). Aborting twice does
     * nothing.
     *
     * @throws IllegalStateException if {@link #finish()} was called
     */
    public CompletableFuture<Void> abort() {
        if (state == State.ABORTED) {
            return CompletableFuture.completedFuture(null);
        }
        if (state == State.FINISHED) {
            throw new IllegalStateException("object " + objectId() + " is finished; it cannot be aborted");
        }
        state = State.ABORTED;
        head = null;
        part = null;
        if (upload == null) {
            return CompletableFuture.completedFuture(null);
        }
        // Part failures do not matter any more; only the abort's own outcome is reported.
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                .handle((v, e) -> null)
                .thenCompose(v -> upload.isCompletedExceptionally()
                        ? CompletableFuture.<Void>completedFuture(null)
                        : upload.thenCompose(MultipartUpload::abort));
    }

    private void checkOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("object " + objectId() + " is already " + state.name().toLowerCase(
                    java.util.Locale.ROOT));
        }
    }

    /**
     * Aborts the started multipart upload after a failure, once every part has settled; a
     * failure to abort is added to {@code cause} as suppressed.
     */
    private CompletableFuture<Void> abortUpload(Throwable cause) {
        if (upload.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(null); // never created: nothing to abort
        }
        return upload.thenCompose(MultipartUpload::abort).handle((v, e) -> {
            if (e != null) {
                cause.addSuppressed(unwrap(e));
            }
            return null;
        });
    }

    private void append(ByteBuffer bytes) {
        if (upload == null) {
            ensureHeadRoom(bytes.remaining());
            head.put(bytes);
            if (head.position() >= multipartThreshold) {
                startMultipart();
            }
            return;
        }
        while (bytes.hasRemaining()) {
            int n = Math.min(bytes.remaining(), part.remaining());
            part.put(bytes.slice(bytes.position(), n));
            bytes.position(bytes.position() + n);
            if (!part.hasRemaining()) {
                sendPart(part.flip());
                part = ByteBuffer.allocate(partSize);
            }
        }
    }

    private void startMultipart() {
        upload = storage.createMultipartUpload(key);
        ByteBuffer all = head.flip();
        head = null;
        // Full parts are views of the head buffer: nothing writes to it any more.
        while (all.remaining() >= partSize) {
            sendPart(all.slice(all.position(), partSize));
            all.position(all.position() + partSize);
        }
        part = ByteBuffer.allocate(partSize);
        part.put(all);
    }

    private void sendPart(ByteBuffer data) {
        int number = nextPartNumber++;
        if (number > MultipartUpload.MAX_PARTS) {
            throw new IllegalStateException("object " + objectId() + " needs more than " + MultipartUpload.MAX_PARTS
                    + " parts of " + partSize + " bytes; raise partSize");
        }
        parts.add(upload.thenCompose(u -> u.uploadPart(number, data)));
    }

    private void ensureHeadRoom(int bytes) {
        if (head.remaining() >= bytes) {
            return;
        }
        long needed = (long) head.position() + bytes;
        // Past the threshold the head is split into parts at once, so it never nears 2 GiB
        // unless a single block does.
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * head.capacity()));
        ByteBuffer bigger = ByteBuffer.allocate(capacity);
        bigger.put(head.flip());
        head = bigger;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
