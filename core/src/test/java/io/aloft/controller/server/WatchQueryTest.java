package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.command.Reply;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.WatchResult;
import io.aloft.controller.query.Queries;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/**
 * A watch is answered at once, never held open. Regression: watches waited up to 3 s for changes,
 * and Ratis's netty server holds one of its I/O threads for as long as a request is unanswered, so
 * writes on connections sharing that thread waited 3 to 10 s behind each watch.
 */
class WatchQueryTest {

    @Test
    void watchWithNothingNewIsAnsweredAtOnce() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            ControllerStateMachine sm = new ControllerStateMachine(100, new BrokerLiveness(), timer,
                    ControllerSchemas.CODEC);
            // First poll: the watcher has no position yet and gets the (empty) image.
            WatchResult image = watch(sm, new Queries.Watch(-1, 10_000));
            // Second poll, from just past the image, asking to wait 10 s for changes: none come.
            CompletableFuture<Message> second = sm.query(message(new Queries.Watch(image.nextIndex(), 10_000)));
            assertTrue(second.isDone(), "answered without waiting for changes");
            WatchResult empty = result(second.get());
            assertNull(empty.image());
            assertEquals(List.of(), empty.events());
            assertEquals(image.nextIndex(), empty.nextIndex(), "the watcher keeps its position");
        } finally {
            timer.shutdownNow();
        }
    }

    /**
     * A stale read this voter cannot answer yet is refused at once, not held: Ratis 3.3.0's own
     * wait never ended after a state-machine entry (see ControllerStateMachine.queryStale), and it
     * held a netty I/O thread of the voter, wedging a restarted follower for good.
     */
    @Test
    void staleReadBeyondTheAppliedIndexIsRefusedAtOnce_oneWithinIsAnswered() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            ControllerStateMachine sm = new ControllerStateMachine(100, new BrokerLiveness(), timer,
                    ControllerSchemas.CODEC);
            sm.notifyTermIndexUpdated(1, 3);
            CompletableFuture<Message> ahead = sm.queryStale(message(new Queries.DescribeCluster()), 5);
            assertTrue(ahead.isDone(), "refused without waiting for index 5");
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, ahead::get);
            org.junit.jupiter.api.Assertions.assertInstanceOf(
                    org.apache.ratis.protocol.exceptions.StateMachineException.class, e.getCause());
            CompletableFuture<Message> within = sm.queryStale(message(new Queries.DescribeCluster()), 3);
            assertTrue(within.isDone());
            within.get();
        } finally {
            timer.shutdownNow();
        }
    }

    private static WatchResult watch(ControllerStateMachine sm, Queries.Watch w) throws Exception {
        CompletableFuture<Message> reply = sm.query(message(w));
        assertTrue(reply.isDone());
        return result(reply.get());
    }

    private static Message message(Object query) {
        return Message.valueOf(ByteString.copyFrom(ControllerSchemas.CODEC.encode(query, FeatureLevel.INITIAL,
                FeatureLevel.INITIAL)));
    }

    private static WatchResult result(Message m) throws Exception {
        return (WatchResult) ControllerSchemas.CODEC.decode(m.getContent().toByteArray(), Reply.class).value();
    }
}
