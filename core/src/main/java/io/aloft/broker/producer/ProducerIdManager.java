package io.aloft.broker.producer;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.AllocateProducerIds;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Hands out idempotent-producer ids from blocks the controller reserves for this broker, so
 * InitProducerId rarely waits for the controller. Ids are unique across the cluster and never
 * reused (a block not used up before a restart is simply skipped).
 *
 * <p>Thread-safe.
 */
public final class ProducerIdManager {
    static final int BLOCK_SIZE = 1000;

    private final ControllerClient controller;
    private final int brokerId;
    // Guarded by this.
    private long next;
    private long end;
    private boolean allocating;
    private final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();

    public ProducerIdManager(ControllerClient controller, int brokerId) {
        this.controller = controller;
        this.brokerId = brokerId;
    }

    /** A fresh producer id. */
    public CompletableFuture<Long> nextId() {
        CompletableFuture<Long> id = new CompletableFuture<>();
        boolean allocate = false;
        synchronized (this) {
            if (next < end) {
                id.complete(next++);
                return id;
            }
            waiting.add(id);
            if (!allocating) {
                allocating = true;
                allocate = true;
            }
        }
        if (allocate) {
            allocateBlock();
        }
        return id;
    }

    private void allocateBlock() {
        controller.submit(new AllocateProducerIds(brokerId, BLOCK_SIZE), Long.class).whenComplete((first, error) -> {
            ArrayDeque<CompletableFuture<Long>> served = new ArrayDeque<>();
            boolean again = false;
            synchronized (this) {
                if (error == null) {
                    next = first;
                    end = first + BLOCK_SIZE;
                    while (!waiting.isEmpty() && next < end) {
                        CompletableFuture<Long> w = waiting.poll();
                        w.complete(next++);
                    }
                    again = !waiting.isEmpty();
                } else {
                    served.addAll(waiting);
                    waiting.clear();
                }
                allocating = again;
            }
            served.forEach(w -> w.completeExceptionally(error));
            if (again) {
                allocateBlock();
            }
        });
    }
}
