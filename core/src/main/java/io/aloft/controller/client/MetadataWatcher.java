package io.aloft.controller.client;

import io.aloft.controller.command.Reply;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.WatchResult;
import io.aloft.controller.query.Queries;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the controller's change feed on its own thread: it polls the leader, again at once
 * after changes and every {@value #IDLE_POLL_INTERVAL_MS} ms while nothing changes (the controller
 * answers polls at once rather than holding them open; see {@code ControllerStateMachine}). The
 * listener first gets a full {@link ClusterImage}, then every change in log order; after falling
 * behind (or a controller restart) it gets a new image.
 *
 * <p>A failed poll (no leader, a timeout) is retried from the same position. A listener that
 * throws is not: it would get the same change again and again while the broker's view of the
 * cluster stays stale, so the exception ends the watcher's thread and goes to its uncaught
 * exception handler (the broker stops; by default it is logged).
 *
 * <p>The listener runs on the watcher's thread, one call at a time. Close to stop.
 */
public final class MetadataWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetadataWatcher.class);
    /** How long one poll asks the leader to wait for a change (the leader answers at once anyway). */
    static final long POLL_WAIT_MS = 0;
    /** The pause after a poll that brought nothing: the latency of a change reaching a watcher. */
    static final long IDLE_POLL_INTERVAL_MS = 100;

    /** Receives the cluster state and its changes. */
    public interface Listener {
        /** Replace everything known with this image. */
        void onImage(ClusterImage image);

        /** Apply one change. */
        void onEvent(MetadataEvent event);

        /** A listener that hands each image and event to {@code listeners}, in order. */
        static Listener all(Listener... listeners) {
            List<Listener> copy = List.of(listeners);
            return new Listener() {
                @Override
                public void onImage(ClusterImage image) {
                    copy.forEach(l -> l.onImage(image));
                }

                @Override
                public void onEvent(MetadataEvent event) {
                    copy.forEach(l -> l.onEvent(event));
                }
            };
        }
    }

    private final ControllerClient client;
    private final RaftClient raftClient;
    private final Listener listener;
    private final Thread thread;
    private volatile boolean closed;
    private volatile long position = -1;

    private MetadataWatcher(ControllerClient client, Listener listener, Thread.UncaughtExceptionHandler handler) {
        this.client = client;
        this.raftClient = client.newWatchClient();
        this.listener = listener;
        this.thread = new Thread(this::run, "controller-watcher");
        this.thread.setDaemon(true);
        this.thread.setUncaughtExceptionHandler(handler);
    }

    /** Starts watching the quorum that {@code client} talks to; a listener failure is logged. */
    public static MetadataWatcher start(ControllerClient client, Listener listener) {
        return start(client, listener, (thread, error) -> log.error("The change feed listener failed on {}; the "
                + "watcher stops", thread.getName(), error));
    }

    /** As {@link #start(ControllerClient, Listener)}, a listener failure going to {@code handler}. */
    public static MetadataWatcher start(ControllerClient client, Listener listener,
            Thread.UncaughtExceptionHandler handler) {
        MetadataWatcher w = new MetadataWatcher(client, listener, java.util.Objects.requireNonNull(handler, "handler"));
        w.thread.start();
        return w;
    }

    /** The log index the next poll starts from (-1 before the first image). */
    public long position() {
        return position;
    }

    private void run() {
        while (!closed) {
            WatchResult result;
            try {
                result = poll();
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                // Keep the position: the next poll resumes there, on whichever voter leads by then.
                log.debug("Change feed poll failed; retrying", e);
                sleepQuietly(200);
                continue;
            }
            // Before the listener acts on these changes: its reads must see them (or later).
            client.observed(result.nextIndex() - 1);
            try {
                if (result.image() != null) {
                    listener.onImage(result.image());
                }
                for (MetadataEvent e : result.events()) {
                    listener.onEvent(e);
                }
            } catch (RuntimeException | Error e) {
                if (closed) {
                    return; // closing: what the listener uses may be gone already
                }
                throw e; // ends this thread (see the class comment)
            }
            position = result.nextIndex();
            if (result.image() == null && result.events().isEmpty()) {
                sleepQuietly(IDLE_POLL_INTERVAL_MS);
            }
        }
    }

    private WatchResult poll() throws IOException {
        Message poll = Message.valueOf(ByteString.copyFrom(
                client.encode(new Queries.Watch(position, POLL_WAIT_MS))));
        RaftClientReply raftReply = raftClient.io().sendReadOnly(poll);
        if (!raftReply.isSuccess()) {
            throw new IOException(String.valueOf(raftReply.getException()));
        }
        Reply reply = client.decodeReply(raftReply.getMessage().getContent().toByteArray());
        if (reply.failure() != null) {
            throw ControllerClient.toException(reply.failure());
        }
        return (WatchResult) reply.value();
    }

    private static void sleepQuietly(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        thread.interrupt();
        raftClient.close();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
