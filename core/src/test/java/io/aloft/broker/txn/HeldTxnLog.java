package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.MemoryCoordinatorLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A {@link MemoryCoordinatorLog} of __transaction_state whose appends, while held, become durable
 * only when the test releases them (or never, if it fails them), to show what waits for
 * durability. Thread-safe.
 */
final class HeldTxnLog implements CoordinatorLog<TransactionRecord> {

    private record Pending(int partition, List<TransactionRecord> records, CompletableFuture<Void> future) {
    }

    private final MemoryCoordinatorLog<TransactionRecord> inner =
            new MemoryCoordinatorLog<>(TransactionRecordSerde.INSTANCE);
    private final List<Pending> held = new ArrayList<>();
    private boolean hold;

    synchronized void hold() {
        hold = true;
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<TransactionRecord> records) {
        synchronized (this) {
            if (hold) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                held.add(new Pending(partition, List.copyOf(records), f));
                return f;
            }
        }
        return inner.append(partition, records);
    }

    /** Writes the held appends in order and completes their futures, on the calling thread. */
    void release() {
        List<Pending> toWrite;
        synchronized (this) {
            hold = false;
            toWrite = new ArrayList<>(held);
            held.clear();
        }
        for (Pending p : toWrite) {
            inner.append(p.partition(), p.records()).join();
            p.future().complete(null);
        }
    }

    /** Fails the held appends; none of their records is written. */
    void fail(RuntimeException e) {
        List<Pending> toFail;
        synchronized (this) {
            hold = false;
            toFail = new ArrayList<>(held);
            held.clear();
        }
        toFail.forEach(p -> p.future().completeExceptionally(e));
    }

    @Override
    public void replay(int partition, Consumer<TransactionRecord> sink) {
        inner.replay(partition, sink);
    }

    int size(int partition) {
        return inner.size(partition);
    }
}
