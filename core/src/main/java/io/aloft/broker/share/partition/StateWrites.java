package io.aloft.broker.share.partition;

import io.aloft.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a share partition still has to write to the persister: the range of offsets whose stored
 * state changed since the last write was taken, whether the start offset moved, and the
 * acknowledgements waiting for durability. One write is in flight at a time; it carries the
 * current state of the dirty range ({@link InFlightRecords#stored}) and the current start offset,
 * so a later write always holds newer state than an earlier one and never has to be ordered
 * against it, and changes made while a write is in flight share the next one.
 *
 * <p>Not thread-safe: guarded by the lock of its {@link SharePartition}.
 */
final class StateWrites {
    private long dirtyFirst = Long.MAX_VALUE;
    private long dirtyLast = Long.MIN_VALUE;
    private boolean startDirty;
    private boolean writing;
    private List<CompletableFuture<Void>> waiting = new ArrayList<>();

    /** One write taken: what to send, and whom to tell when it is durable. */
    record Write(long startOffset, int deliveryCompleteCount, List<StateBatch> batches, long first, long last,
            List<CompletableFuture<Void>> waiting) {
    }

    void dirty(long offset) {
        dirtyFirst = Math.min(dirtyFirst, offset);
        dirtyLast = Math.max(dirtyLast, offset);
    }

    void startMoved() {
        startDirty = true;
    }

    /** A future completing once a write taken after this call is durable. */
    CompletableFuture<Void> newWait() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        waiting.add(f);
        return f;
    }

    /** The next write, or null when one is in flight or nothing is to be written. */
    Write take(InFlightRecords records) {
        if (writing || (!startDirty && dirtyFirst > dirtyLast && waiting.isEmpty())) {
            return null;
        }
        writing = true;
        Write w = new Write(records.start(), records.deliveryCompleteCount(),
                dirtyFirst <= dirtyLast ? records.stored(dirtyFirst, dirtyLast) : List.of(), dirtyFirst, dirtyLast,
                waiting);
        dirtyFirst = Long.MAX_VALUE;
        dirtyLast = Long.MIN_VALUE;
        startDirty = false;
        waiting = new ArrayList<>();
        return w;
    }

    /** The write in flight ended; a failed one is to be written again. */
    void done(Write w, boolean failed) {
        writing = false;
        if (failed) {
            if (w.first() <= w.last()) {
                dirty(w.first());
                dirty(w.last());
            }
            startDirty = true;
        }
    }

    /** Whether everything changed is durable: nothing dirty, in flight or waiting. */
    boolean idle() {
        return !writing && !startDirty && dirtyFirst > dirtyLast && waiting.isEmpty();
    }

    /** The acknowledgements waiting for a write not taken yet (the share partition closed: they fail). */
    List<CompletableFuture<Void>> drainWaiting() {
        List<CompletableFuture<Void>> out = waiting;
        waiting = new ArrayList<>();
        return out;
    }
}
