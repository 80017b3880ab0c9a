package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.MetadataEvent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ChangeFeedTest {

    /** A distinct event at {@code index}; the broker id tells events of one index apart. */
    private static MetadataEvent event(long index, int brokerId) {
        return MetadataEvent.brokerRemoved(index, brokerId);
    }

    private static ChangeFeed.Poll done(CompletableFuture<ChangeFeed.Poll> f) {
        assertTrue(f.isDone(), "answered at once");
        return f.join();
    }

    private static ChangeFeed.Poll events(List<MetadataEvent> events) {
        return new ChangeFeed.Poll(false, events);
    }

    private static final ChangeFeed.Poll NEEDS_IMAGE = new ChangeFeed.Poll(true, List.of());

    @Test
    void returnsTheEventsAtOrAfterAPosition() {
        ChangeFeed feed = new ChangeFeed(100);
        feed.publish(List.of(event(3, 1)));
        feed.publish(List.of(event(5, 1), event(5, 2)));
        feed.publish(List.of()); // commands without changes publish nothing
        feed.publish(List.of(event(8, 1)));
        assertEquals(events(List.of(event(3, 1), event(5, 1), event(5, 2), event(8, 1))), done(feed.watch(0)));
        assertEquals(events(List.of(event(5, 1), event(5, 2), event(8, 1))), done(feed.watch(4)));
        assertEquals(events(List.of(event(5, 1), event(5, 2), event(8, 1))), done(feed.watch(5)));
        assertEquals(events(List.of(event(8, 1))), done(feed.watch(8)));
        assertFalse(feed.watch(9).isDone(), "nothing at 9 yet: wait");
    }

    @Test
    void aWaiterIsCompletedByTheNextPublish() {
        ChangeFeed feed = new ChangeFeed(100);
        feed.publish(List.of(event(1, 1)));
        CompletableFuture<ChangeFeed.Poll> early = feed.watch(2);
        CompletableFuture<ChangeFeed.Poll> later = feed.watch(4);
        assertFalse(early.isDone());
        feed.publish(List.of(event(2, 1), event(2, 2)));
        assertEquals(events(List.of(event(2, 1), event(2, 2))), done(early));
        assertFalse(later.isDone(), "its position is still ahead");
        feed.publish(List.of(event(4, 7)));
        assertEquals(events(List.of(event(4, 7))), done(later));
    }

    @Test
    void aWaiterCompletedElsewhereIsNotCompletedAgain() {
        // The state machine completes a waiter with an empty poll when its wait runs out.
        ChangeFeed feed = new ChangeFeed(100);
        CompletableFuture<ChangeFeed.Poll> waiter = feed.watch(1);
        waiter.complete(events(List.of()));
        feed.publish(List.of(event(1, 1)));
        assertEquals(events(List.of()), waiter.join());
        assertEquals(events(List.of(event(1, 1))), done(feed.watch(1)));
    }

    @Test
    void evictedPositionsNeedAnImage() {
        ChangeFeed feed = new ChangeFeed(3);
        for (long i = 1; i <= 5; i++) {
            feed.publish(List.of(event(i, 1)));
        }
        // Events 1 and 2 were evicted: a watcher at 1 or 2 missed something.
        assertEquals(NEEDS_IMAGE, done(feed.watch(1)));
        assertEquals(NEEDS_IMAGE, done(feed.watch(2)));
        assertEquals(events(List.of(event(3, 1), event(4, 1), event(5, 1))), done(feed.watch(3)));
        assertEquals(NEEDS_IMAGE, done(feed.watch(-1)));
    }

    @Test
    void anIndexIsNeverServedInPart() {
        // The events of one index are evicted together: serving the half that is left would let a watcher
        // at that index miss the other half.
        ChangeFeed feed = new ChangeFeed(3);
        feed.publish(List.of(event(1, 1), event(1, 2)));
        feed.publish(List.of(event(2, 1), event(2, 2)));
        assertEquals(NEEDS_IMAGE, done(feed.watch(1)));
        assertEquals(events(List.of(event(2, 1), event(2, 2))), done(feed.watch(2)));
    }

    @Test
    void aWaiterWhoseEventsWereEvictedAtOnceNeedsAnImage() {
        // One index with more events than the feed holds: the waiting watcher must not skip past them.
        ChangeFeed feed = new ChangeFeed(2);
        feed.publish(List.of(event(1, 1)));
        CompletableFuture<ChangeFeed.Poll> waiter = feed.watch(2);
        feed.publish(List.of(event(2, 1), event(2, 2), event(2, 3)));
        assertEquals(NEEDS_IMAGE, done(waiter));
        assertFalse(feed.watch(3).isDone(), "positions after the evicted index are still servable");
    }

    @Test
    void resetCompletesWaitersWithNeedsImageAndForgetsHistory() {
        ChangeFeed feed = new ChangeFeed(100);
        feed.publish(List.of(event(1, 1), event(2, 1)));
        CompletableFuture<ChangeFeed.Poll> a = feed.watch(3);
        CompletableFuture<ChangeFeed.Poll> b = feed.watch(50);
        feed.reset(10); // a snapshot at index 10 replaced the state
        assertEquals(NEEDS_IMAGE, done(a));
        assertEquals(NEEDS_IMAGE, done(b));
        assertEquals(NEEDS_IMAGE, done(feed.watch(1)));
        assertEquals(NEEDS_IMAGE, done(feed.watch(10)));
        CompletableFuture<ChangeFeed.Poll> next = feed.watch(11);
        assertFalse(next.isDone());
        feed.publish(List.of(event(11, 4)));
        assertEquals(events(List.of(event(11, 4))), done(next));
    }
}
