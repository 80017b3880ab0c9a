package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.MetadataEvent;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change-feed listener that throws is not retried forever behind a DEBUG line (the broker's view
 * of the cluster would stay stale): the watcher's thread ends and its handler hears of it once.
 */
class WatcherListenerFailureTest {
    @TempDir
    Path dir;

    private record Uncaught(String thread, Throwable error) {
    }

    @Test
    void listenerThrows_endsTheWatcherThroughItsHandler() throws Exception {
        AtomicInteger images = new AtomicInteger();
        CompletableFuture<Uncaught> uncaught = new CompletableFuture<>();
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            MetadataWatcher watcher = MetadataWatcher.start(client, new MetadataWatcher.Listener() {
                @Override
                public void onImage(ClusterImage image) {
                    images.incrementAndGet();
                    throw new IllegalStateException("cannot apply the image");
                }

                @Override
                public void onEvent(MetadataEvent event) {
                }
            }, (thread, error) -> uncaught.complete(new Uncaught(thread.getName(), error)));
            try {
                Uncaught u = uncaught.get(30, TimeUnit.SECONDS);
                assertEquals("controller-watcher", u.thread());
                assertEquals("cannot apply the image", u.error().getMessage());
                assertEquals(1, images.get(), "the image was not delivered again");
            } finally {
                watcher.close();
            }
        }
    }
}
