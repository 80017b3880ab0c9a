package io.aloft.broker.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A {@link MemoryCoordinatorLog} whose appends, while held, become durable and complete only when
 * the test says so (or fail), to show what waits for durability. Thread-safe.
 */
public final class HeldLog<R> implements CoordinatorLog<R> {

    private record Pending<R>(int partition, List<R> records, CompletableFuture<Void> future) {
    }

    final MemoryCoordinatorLog<R> inner;
    private final List<Pending<R>> held = new ArrayList<>();
    private boolean hold;

    public HeldLog(CoordinatorRecordSerde<R> serde) {
        this.inner = new MemoryCoordinatorLog<>(serde);
    }

    public synchronized void hold() {
        hold = true;
    }

    public synchronized int pending() {
        return held.size();
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<R> records) {
        synchronized (this) {
            if (hold) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                held.add(new Pending<>(partition, List.copyOf(records), f));
                return f;
            }
        }
        return inner.append(partition, records);
    }

    /** Writes the held appends, in order, and completes their futures (on the calling thread). */
    public void release() {
        List<Pending<R>> toWrite;
        synchronized (this) {
            hold = false;
            toWrite = new ArrayList<>(held);
            held.clear();
        }
        for (Pending<R> p : toWrite) {
            inner.append(p.partition(), p.records()).join();
            p.future().complete(null);
        }
    }

    /** Fails the held appends; nothing of them is written. */
    public void fail(RuntimeException e) {
        List<Pending<R>> toFail;
        synchronized (this) {
            hold = false;
            toFail = new ArrayList<>(held);
            held.clear();
        }
        toFail.forEach(p -> p.future().completeExceptionally(e));
    }

    @Override
    public void replay(int partition, Consumer<R> sink) {
        inner.replay(partition, sink);
    }

    /** Records durable in {@code partition} so far. */
    public int size(int partition) {
        return inner.size(partition);
    }
}
