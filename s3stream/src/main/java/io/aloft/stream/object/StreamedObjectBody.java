package io.aloft.stream.object;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.PutBody;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One object (layout: {@link ObjectFormat}) as a {@link PutBody}: its batches are encoded block by
 * block as storage reads, so a put of it holds a few blocks in memory rather than the object, and
 * its encoding work (copies, CRCs) is spread over the upload instead of done in one burst before
 * it. The exact size is known up front ({@link ObjectEncoder#plan}), so the object goes out as
 * one request with its Content-Length.
 *
 * <p>Each pass re-encodes from the batches, so a retried request sends the same bytes: the
 * batches must stay unchanged until the put completes (a log-cache block keeps them until
 * committed). A pass checks that it produced exactly the planned bytes.
 *
 * <p><b>Thread-safety:</b> the body is immutable and thread-safe; each pass is used by one reader
 * at a time, as {@link PutBody.Pass} says, and encodes on the body's executor (the caller's thread
 * unless {@link #paced} names one); the pass's state moves between threads only through the
 * futures that order its calls.
 *
 * <p><b>Buffers:</b> the batches are borrowed for the body's lifetime (read, never modified or
 * released). A pass lends each chunk until its next call; it reuses a few heap buffers of about
 * a block each, so a pass holds the encoder's block and at most two chunks.
 */
public final class StreamedObjectBody implements PutBody {

    private final ObjectWriterConfig config;
    private final List<StreamRecordBatch> batches;
    private final ObjectSummary summary;
    private final UploadThrottle throttle;
    private final Executor encoding;

    private StreamedObjectBody(ObjectWriterConfig config, List<StreamRecordBatch> batches, ObjectSummary summary,
            UploadThrottle throttle, Executor encoding) {
        this.config = config;
        this.batches = batches;
        this.summary = summary;
        this.throttle = throttle;
        this.encoding = encoding;
    }

    /**
     * The body of object {@code objectId} holding {@code batches} (in the order {@link ObjectWriter}
     * describes), paced by {@code throttle}.
     *
     * @throws IllegalArgumentException if the batches are out of order or the id is negative
     */
    public static StreamedObjectBody of(long objectId, List<StreamRecordBatch> batches, ObjectWriterConfig config,
            UploadThrottle throttle) {
        List<StreamRecordBatch> copy = List.copyOf(batches);
        return new StreamedObjectBody(config, copy, ObjectEncoder.plan(objectId, config, copy), throttle, Runnable::run);
    }

    /**
     * Puts {@code batches} as object {@code objectId} with one streamed put and completes with its
     * summary once stored.
     *
     * @throws IllegalArgumentException if the batches are out of order; nothing is sent
     */
    public static CompletableFuture<ObjectSummary> upload(ObjectStorage storage, long objectId,
            List<StreamRecordBatch> batches, ObjectWriterConfig config, UploadThrottle throttle) {
        StreamedObjectBody body = of(objectId, batches, config, throttle);
        return storage.put(ObjectKeys.key(objectId), body).thenApply(v -> body.summary);
    }

    /**
     * The same object paced by {@code throttle} instead, its blocks encoded on {@code encoding}
     * (the plan is not made again). Without an executor a block is encoded on the thread asking
     * for it: a storage's I/O thread, which should not do that CPU work.
     */
    public StreamedObjectBody paced(UploadThrottle throttle, Executor encoding) {
        return new StreamedObjectBody(config, batches, summary, throttle, encoding);
    }

    /** What the object holds, and its exact size. */
    public ObjectSummary summary() {
        return summary;
    }

    @Override
    public long length() {
        return summary.size();
    }

    @Override
    public PutBody.Pass open() {
        return new EncodingPass();
    }

    /** Encodes on demand; see {@link PutBody.Pass} for who calls it when. */
    private final class EncodingPass implements PutBody.Pass {
        private final Iterator<StreamRecordBatch> remaining = batches.iterator();
        private final ObjectEncoder encoder = new ObjectEncoder(summary.objectId(), config, this::accept);
        /** Encoded chunks not yet handed out, in order (finishing an object yields two at once). */
        private final ArrayDeque<ByteBuffer> ready = new ArrayDeque<>(2);
        /** Chunk buffers to reuse. */
        private final ArrayDeque<ByteBuffer> spare = new ArrayDeque<>(2);
        /** The chunk lent by the last call, taken back at the next. */
        private ByteBuffer lent;
        private long handedOut;
        private boolean encoded;
        private volatile boolean closed;

        @Override
        public CompletableFuture<ByteBuffer> next() {
            if (lent != null) {
                recycle(lent);
                lent = null;
            }
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("pass over object "
                        + summary.objectId() + " is closed"));
            }
            CompletableFuture<ByteBuffer> encoded;
            try {
                encoded = CompletableFuture.supplyAsync(this::encodeNext, encoding);
            } catch (RuntimeException e) { // the executor refused: it is shutting down
                return CompletableFuture.failedFuture(e);
            }
            return encoded.thenCompose(chunk -> {
                if (chunk == null) {
                    return CompletableFuture.completedFuture(null);
                }
                long offset = handedOut;
                handedOut += chunk.remaining();
                lent = chunk;
                return throttle.admit(offset, chunk.remaining()).thenApply(v -> chunk.asReadOnlyBuffer());
            });
        }

        private ByteBuffer encodeNext() {
            while (ready.isEmpty() && !encoded) {
                if (remaining.hasNext()) {
                    encoder.write(remaining.next());
                } else {
                    ObjectSummary done = encoder.finish();
                    encoded = true;
                    if (done.size() != summary.size() || !done.ranges().equals(summary.ranges())) {
                        throw new IllegalStateException("object " + summary.objectId() + " encoded to " + done.size()
                                + " bytes and ranges " + done.ranges() + ", planned " + summary.size() + " and "
                                + summary.ranges());
                    }
                }
            }
            return ready.poll();
        }

        /** The encoder's sink: copies the bytes it lends into a chunk of ours. */
        private void accept(ByteBuffer bytes) {
            ByteBuffer chunk = spare.poll();
            if (chunk == null || chunk.capacity() < bytes.remaining()) {
                chunk = ByteBuffer.allocate(Math.max(config.blockSize(), bytes.remaining()));
            }
            ready.add(chunk.put(bytes).flip());
        }

        private void recycle(ByteBuffer chunk) {
            // A block larger than the target (one huge batch) is not worth keeping.
            if (spare.size() < 2 && chunk.capacity() <= config.blockSize()) {
                spare.add(chunk.clear());
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
