package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.MetadataEvent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Waking watchers parked on the feed. Regression: a woken waiter's completion removes it from the
 * waiter list while publish (or reset) was still iterating that list; the
 * ConcurrentModificationException escaped on the state machine's apply thread and Ratis stopped
 * the voter, so the first cluster change under a long-polling watcher took its voter down.
 */
class ChangeFeedWaiterTest {

    @Test
    void publishWakesParkedWatchers() {
        ChangeFeed feed = new ChangeFeed(100);
        CompletableFuture<ChangeFeed.Poll> first = feed.watch(0);
        CompletableFuture<ChangeFeed.Poll> second = feed.watch(0);
        assertFalse(first.isDone(), "nothing to report yet: the watcher waits");

        MetadataEvent event = MetadataEvent.brokerRemoved(5, 1);
        feed.publish(List.of(event));

        assertEquals(new ChangeFeed.Poll(false, List.of(event)), first.getNow(null));
        assertEquals(new ChangeFeed.Poll(false, List.of(event)), second.getNow(null));
        assertFalse(feed.watch(6).isDone(), "a watcher past the last event waits again");
    }

    @Test
    void resetSendsParkedWatchersToAnImage() {
        ChangeFeed feed = new ChangeFeed(100);
        CompletableFuture<ChangeFeed.Poll> parked = feed.watch(0);
        feed.reset(41);
        assertTrue(parked.getNow(null).needsImage());
        assertTrue(feed.watch(10).getNow(null).needsImage(), "history before the snapshot is gone");
        assertFalse(feed.watch(42).isDone());
    }
}
