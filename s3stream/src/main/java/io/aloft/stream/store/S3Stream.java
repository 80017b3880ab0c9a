package io.aloft.stream.store;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A stream opened on a {@link StreamStore}. Holds the stream's offsets and the queue of appends
 * waiting to be confirmed in order; the store does the work.
 *
 * <p>Thread-safe: {@code nextOffset} is assigned under the store's append lock; the pending
 * queue and confirm offset under this object's monitor. Appends are confirmed, and their futures
 * completed, on this stream's acknowledgement thread ({@link #acks()}), in offset order.
 */
final class S3Stream implements Stream {
    enum State { OPEN, CLOSING, CLOSED, FENCED }

    private final StreamStore store;
    private final long streamId;
    private final long epoch;
    private volatile long startOffset;
    private volatile long confirmOffset;
    private volatile State state = State.OPEN;
    /** Offset just past the data committed to objects, as far as this handle knows. */
    private volatile long committedEnd;
    /** Start offset as last written to metadata (the local one may be ahead of it). */
    private volatile long metadataStart;
    /** Guarded by the store's append lock. */
    long nextOffset;
    private final ArrayDeque<PendingAppend> pending = new ArrayDeque<>();
    /** Where this stream's appends are acknowledged (one thread; see {@link AckThreads}). */
    private final Executor acks;

    /** One append between its WAL write and its confirmation. */
    static final class PendingAppend {
        final long baseOffset;
        final long endOffset;
        final CompletableFuture<Long> future = new CompletableFuture<>();
        boolean durable;

        PendingAppend(long baseOffset, long endOffset) {
            this.baseOffset = baseOffset;
            this.endOffset = endOffset;
        }
    }

    S3Stream(StreamStore store, long streamId, long epoch, long startOffset, long endOffset, Executor acks) {
        this.store = store;
        this.acks = acks;
        this.streamId = streamId;
        this.epoch = epoch;
        this.startOffset = startOffset;
        this.confirmOffset = endOffset;
        this.nextOffset = endOffset;
        this.committedEnd = endOffset;
        this.metadataStart = startOffset;
    }

    /** The executor this stream's appends are acknowledged on (a single thread). */
    Executor acks() {
        return acks;
    }

    long committedEnd() {
        return committedEnd;
    }

    @Override
    public long committedOffset() {
        return committedEnd;
    }

    synchronized void committedEnd(long offset) {
        committedEnd = Math.max(committedEnd, offset);
    }

    long metadataStart() {
        return metadataStart;
    }

    synchronized void metadataStart(long offset) {
        metadataStart = Math.max(metadataStart, offset);
    }

    @Override
    public long streamId() {
        return streamId;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public long startOffset() {
        return startOffset;
    }

    synchronized void startOffset(long offset) {
        startOffset = Math.max(startOffset, offset);
    }

    @Override
    public long confirmOffset() {
        return confirmOffset;
    }

    @Override
    public long nextOffset() {
        return nextOffset;
    }

    State state() {
        return state;
    }

    void state(State state) {
        this.state = state;
    }

    @Override
    public CompletableFuture<Long> append(ByteBuffer payload, int count) {
        return store.append(this, payload, count);
    }

    @Override
    public boolean admits(int bytes) {
        return store.admits(bytes);
    }

    @Override
    public CompletableFuture<FetchResult> fetch(long startOffset, long endOffset, int maxBytes) {
        return store.fetch(this, startOffset, endOffset, maxBytes);
    }

    @Override
    public CompletableFuture<Void> trim(long newStartOffset) {
        return store.trim(this, newStartOffset);
    }

    @Override
    public CompletableFuture<Void> close() {
        return store.closeStream(this);
    }

    /** Registers an append whose offsets were just assigned. Called under the store's append lock. */
    synchronized PendingAppend addPending(long baseOffset, long endOffset) {
        PendingAppend p = new PendingAppend(baseOffset, endOffset);
        pending.addLast(p);
        return p;
    }

    /**
     * Marks an append durable and completes, in order, every append that is now confirmed. Called
     * on {@link #acks()}.
     */
    void durable(PendingAppend p) {
        List<PendingAppend> confirmed = new ArrayList<>();
        synchronized (this) {
            p.durable = true;
            while (!pending.isEmpty() && pending.peekFirst().durable) {
                PendingAppend head = pending.pollFirst();
                confirmOffset = head.endOffset;
                confirmed.add(head);
            }
        }
        confirmed.forEach(c -> c.future.complete(c.baseOffset));
    }

    /** Fails every pending append (the store failed). */
    void failPending(Throwable error) {
        List<PendingAppend> failed;
        synchronized (this) {
            failed = new ArrayList<>(pending);
            pending.clear();
        }
        failed.forEach(f -> f.future.completeExceptionally(error));
    }

    @Override
    public String toString() {
        return "stream " + streamId + " (epoch " + epoch + ", " + startOffset + ".." + confirmOffset + ", " + state + ")";
    }
}
