package io.aloft.controller.server;

import io.aloft.controller.model.MetadataEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The recent cluster changes of one replica, in log order, and the watchers waiting for more.
 *
 * <p>Log indexes are the same on every replica, so a watcher keeps its position when the leader
 * changes; it only needs a full image when its position is older than what this replica retains
 * (it fell behind, or this replica restarted from a snapshot and has no history before it).
 *
 * <p>Thread-safe: published to on the apply thread, read by query threads.
 */
final class ChangeFeed {

    /** What a watch found: events, or that the watcher must start over from an image. */
    record Poll(boolean needsImage, List<MetadataEvent> events) {
    }

    private final int maxEvents;
    private final ArrayDeque<MetadataEvent> events = new ArrayDeque<>();
    private final List<Waiter> waiters = new ArrayList<>();
    /** The lowest index whose changes are all retained. */
    private long completeFrom;

    private record Waiter(long fromIndex, CompletableFuture<Poll> future) {
    }

    ChangeFeed(int maxEvents) {
        this.maxEvents = maxEvents;
    }

    /** Forgets all history: the state was replaced by a snapshot at {@code index}. */
    void reset(long index) {
        List<Waiter> woken;
        synchronized (this) {
            events.clear();
            completeFrom = index + 1;
            // Waiters' positions may no longer be servable: let them ask again and get an image.
            woken = new ArrayList<>(waiters);
            waiters.clear();
        }
        woken.forEach(w -> w.future().complete(new Poll(true, List.of())));
    }

    void publish(List<MetadataEvent> applied) {
        if (applied.isEmpty()) {
            return;
        }
        List<Waiter> woken = new ArrayList<>();
        List<Poll> polls = new ArrayList<>();
        synchronized (this) {
            events.addAll(applied);
            while (events.size() > maxEvents) {
                long evicted = events.removeFirst().index();
                while (!events.isEmpty() && events.peekFirst().index() == evicted) {
                    events.removeFirst();
                }
                completeFrom = evicted + 1;
            }
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                Poll poll = pollLocked(w.fromIndex());
                if (poll.needsImage() || !poll.events().isEmpty()) {
                    it.remove();
                    woken.add(w);
                    polls.add(poll);
                }
            }
        }
        // Completed outside the loop and the lock: completion runs the waiter's continuations on
        // this thread, and those remove the waiter (modifying the list being iterated, which threw
        // on the apply thread and so stopped the voter) and build the reply.
        for (int i = 0; i < woken.size(); i++) {
            woken.get(i).future().complete(polls.get(i));
        }
    }

    /**
     * The events at or after {@code fromIndex}; when there are none yet, a future that completes
     * when some are published (the caller bounds the wait).
     */
    synchronized CompletableFuture<Poll> watch(long fromIndex) {
        Poll poll = pollLocked(fromIndex);
        if (poll.needsImage() || !poll.events().isEmpty()) {
            return CompletableFuture.completedFuture(poll);
        }
        CompletableFuture<Poll> future = new CompletableFuture<>();
        Waiter waiter = new Waiter(fromIndex, future);
        waiters.add(waiter);
        future.whenComplete((p, e) -> removeWaiter(waiter));
        return future;
    }

    private synchronized void removeWaiter(Waiter waiter) {
        waiters.remove(waiter);
    }

    private Poll pollLocked(long fromIndex) {
        if (fromIndex < completeFrom) {
            return new Poll(true, List.of());
        }
        List<MetadataEvent> found = new ArrayList<>();
        for (Iterator<MetadataEvent> it = events.descendingIterator(); it.hasNext(); ) {
            MetadataEvent e = it.next();
            if (e.index() < fromIndex) {
                break;
            }
            found.add(e);
        }
        java.util.Collections.reverse(found);
        return new Poll(false, found);
    }
}
