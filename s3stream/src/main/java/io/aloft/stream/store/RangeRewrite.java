package io.aloft.stream.store;

import io.aloft.stream.BlockingWait;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.cache.LogCache;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.object.ObjectSummary;
import io.aloft.stream.object.ObjectUploader;
import io.aloft.stream.object.ObjectWriterConfig;
import io.aloft.stream.storage.ObjectStorage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * One rewrite of a committed range {@code [start, end)} of an open stream, made by
 * {@link StreamStore#rewriteRange}: new batches for the same offsets are written as new stream
 * objects and then take the range over in one metadata command ({@code ReplaceStreamRange}), with
 * the stream's epoch, so a fenced owner commits nothing. This is how the broker's key compaction
 * replaces a partition's old data.
 *
 * <h2>Order, and what a crash leaves</h2>
 * Objects are uploaded first, under ids prepared with {@code s3.object.prepare.ttl.ms}, and
 * committed last: until the commit the old data is in force and readers see it; after it, the new
 * data. A rewrite that fails, is aborted, or dies with its process leaves prepared ids that expire
 * and are deleted; the replaced objects are deleted {@code s3.object.delete.delay.ms} after the
 * commit, so readers that looked them up just before finish. After the commit (or a commit that
 * failed, which may have applied all the same), this node's log cache stops serving the stream's
 * batches below {@code end}: reads there follow metadata.
 *
 * <h2>The writer's contract</h2>
 * Batches must tile the range: the first starts at {@code start}, each next one where the previous
 * ended, the last ends at {@code end}. The bytes are the caller's business, but a reader that was
 * in the old data when the commit happened continues in the new data, so where a new batch spans
 * offsets where an old batch ended, that new batch must hold nothing a reader could take twice
 * (the broker writes such batches only without records).
 *
 * <h2>Memory</h2>
 * One object is open at a time: its bytes until the multipart threshold, then the part being
 * filled and at most {@value #MAX_PARTS_IN_FLIGHT} parts in flight ({@link #write} waits for
 * storage beyond that).
 *
 * <p>Confined to one thread, which may block: {@link #write} waits for id allocation and storage.
 */
public final class RangeRewrite {
    static final int MAX_PARTS_IN_FLIGHT = 2;

    private final S3Stream stream;
    private final long start;
    private final long end;
    private final long maxObjectBytes;
    private final StreamMetadata metadata;
    private final ObjectStorage storage;
    private final ObjectWriterConfig writerConfig;
    private final LogCache logCache;
    private final StreamStoreConfig config;
    private final LongSupplier clock;
    private final List<CompletableFuture<ObjectSummary>> finished = new ArrayList<>();
    private ObjectUploader current;
    private long next;
    private long bytesWritten;
    private boolean done;

    /** Run once the replacement is committed (or may have been): kept object lookups must go. */
    private final Runnable replaced;

    RangeRewrite(S3Stream stream, long start, long end, long maxObjectBytes, StreamMetadata metadata,
            ObjectStorage storage, LogCache logCache, StreamStoreConfig config, LongSupplier clock,
            Runnable replaced) {
        this.replaced = replaced;
        this.stream = stream;
        this.start = start;
        this.end = end;
        this.maxObjectBytes = maxObjectBytes;
        this.metadata = metadata;
        this.storage = storage;
        this.logCache = logCache;
        this.config = config;
        this.clock = clock;
        this.writerConfig = ObjectWriterConfig.builder().blockSize(config.objectBlockSizeBytes()).build();
        this.next = start;
    }

    public long streamId() {
        return stream.streamId();
    }

    public long startOffset() {
        return start;
    }

    public long endOffset() {
        return end;
    }

    /** Payload bytes written so far. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /**
     * Writes the next batch of the range. The payload is copied before this returns (the caller
     * keeps it). Starts a new object once the current one holds {@code maxObjectBytes}.
     *
     * @throws IllegalArgumentException if the batch does not start where the previous one ended, or
     *     reaches past the range's end
     * @throws IllegalStateException after {@link #commit} or {@link #abort}
     */
    public void write(ByteBuffer payload, long baseOffset, int count) {
        if (done) {
            throw new IllegalStateException("rewrite of " + this + " is finished");
        }
        if (baseOffset != next || count < 1 || baseOffset + count > end) {
            throw new IllegalArgumentException("batch [" + baseOffset + ", " + (baseOffset + count) + ") of " + this
                    + " does not continue at " + next);
        }
        if (current == null) {
            long id = await(metadata.prepareObjects(new PrepareObjectsRequest(config.nodeId(), 1,
                    config.prepareTtlMs(), clock.getAsLong())));
            current = ObjectUploader.create(storage, id, writerConfig);
        }
        current.write(new StreamRecordBatch(stream.streamId(), stream.epoch(), baseOffset, count, payload));
        next = baseOffset + count;
        bytesWritten += payload.remaining();
        await(current.partsInFlightAtMost(MAX_PARTS_IN_FLIGHT));
        if (current.size() >= maxObjectBytes) {
            finishCurrent();
        }
    }

    private void finishCurrent() {
        ObjectUploader closing = current;
        current = null;
        CompletableFuture<ObjectSummary> summary = closing.finish();
        finished.add(summary);
        // One object's bytes at a time: the next starts once this one is stored.
        await(summary);
    }

    /**
     * Stores the last object and waits until every object of the rewrite is stored, on the calling
     * thread (so the work is not done on storage or metadata threads). Optional before
     * {@link #commit}, which finishes too; a second call does nothing.
     *
     * @throws IllegalStateException if the batches written do not reach the range's end, or after
     *     {@link #commit} or {@link #abort}
     */
    public void finish() {
        if (done) {
            throw new IllegalStateException("rewrite of " + this + " is finished");
        }
        if (next != end) {
            throw new IllegalStateException("rewrite of " + this + " reached " + next + ", not its end " + end);
        }
        if (current != null) {
            finishCurrent();
        }
        for (CompletableFuture<ObjectSummary> f : finished) {
            await(f);
        }
    }

    /**
     * Finishes the last object (see {@link #finish}) and commits the rewrite; completes once the new
     * objects serve the range. A failure (a metadata rejection such as {@code FENCED}, a storage
     * error) leaves the old data in force; the new objects expire with their prepare ttl.
     *
     * @throws IllegalStateException if the batches written do not reach the range's end
     */
    public CompletableFuture<Void> commit() {
        if (done) {
            throw new IllegalStateException("rewrite of " + this + " is finished");
        }
        if (next != end) {
            throw new IllegalStateException("rewrite of " + this + " reached " + next + ", not its end " + end);
        }
        done = true;
        if (current != null) {
            ObjectUploader closing = current;
            current = null;
            finished.add(closing.finish());
        }
        return CompletableFuture.allOf(finished.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            List<StreamObjectSpec> objects = new ArrayList<>();
            for (CompletableFuture<ObjectSummary> f : finished) {
                ObjectSummary s = f.join();
                StreamRange range = s.ranges().get(0);
                objects.add(new StreamObjectSpec(s.objectId(), s.size(), range));
            }
            return metadata.replaceStreamRange(new ReplaceStreamRangeRequest(stream.streamId(), stream.epoch(), start,
                    end, objects, clock.getAsLong()));
        }).whenComplete((v, error) -> {
            // Also after a failure: the command may have applied with its reply lost, and reads from
            // objects follow metadata, whichever data is in force.
            logCache.hideBelow(stream.streamId(), end);
            replaced.run(); // object lookups kept for reads name the old objects, with the old records
        });
    }

    /** Gives the rewrite up: nothing is committed; objects already stored expire with their prepare ttl. */
    public void abort() {
        if (done) {
            return;
        }
        done = true;
        if (current != null) {
            current.abort();
            current = null;
        }
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return BlockingWait.get(future);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while rewriting a stream range");
        }
    }

    @Override
    public String toString() {
        return "stream " + stream.streamId() + " [" + start + ", " + end + ")";
    }
}
