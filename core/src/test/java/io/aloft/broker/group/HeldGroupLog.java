package io.aloft.broker.group;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A {@link MemoryGroupLog} whose appends, while {@link #hold} is on, complete only when the test
 * calls {@link #release} (or fail on {@link #fail}), to show what waits for durability.
 */
final class HeldGroupLog implements GroupLog {

    private final MemoryGroupLog inner = new MemoryGroupLog();
    private final List<Runnable> held = new ArrayList<>();
    private final List<CompletableFuture<Void>> heldFutures = new ArrayList<>();
    private boolean hold;

    synchronized void hold() {
        hold = true;
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<GroupRecord> records) {
        synchronized (this) {
            if (hold) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                held.add(() -> inner.append(partition, records).join());
                heldFutures.add(f);
                return f;
            }
        }
        return inner.append(partition, records);
    }

    /** Makes the held appends durable, in order, and completes their futures. */
    void release() {
        List<Runnable> writes;
        List<CompletableFuture<Void>> futures;
        synchronized (this) {
            hold = false;
            writes = new ArrayList<>(held);
            futures = new ArrayList<>(heldFutures);
            held.clear();
            heldFutures.clear();
        }
        for (int i = 0; i < writes.size(); i++) {
            writes.get(i).run();
            futures.get(i).complete(null);
        }
    }

    /** Fails the held appends; nothing of them is written. */
    void fail(RuntimeException e) {
        List<CompletableFuture<Void>> futures;
        synchronized (this) {
            hold = false;
            futures = new ArrayList<>(heldFutures);
            held.clear();
            heldFutures.clear();
        }
        futures.forEach(f -> f.completeExceptionally(e));
    }

    @Override
    public void replay(int partition, Consumer<GroupRecord> sink) {
        inner.replay(partition, sink);
    }
}
