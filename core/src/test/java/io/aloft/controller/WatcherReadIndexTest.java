package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ClientAccess;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.TopicInfo;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's reads wait for every change its watcher delivered, not only for its own writes.
 * Regression: a broker told by the change feed that another broker created a topic on it opened
 * the partition with a read that carried only its own (older) last write as the index to wait
 * for; a follower that had not applied the CreateTopic yet answered STREAM_NOT_FOUND.
 */
class WatcherReadIndexTest {
    @TempDir
    Path dir;

    @Test
    void listenerSeesAChange_readsOfThatNodeWaitForIt() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient other = q.newClient();
                ControllerClient self = q.newClient()) {
            q.awaitLeader();
            self.submit(new PutKv("own-write", new byte[] {1})).get(30, TimeUnit.SECONDS);
            long ownWrite = ClientAccess.lastSeenIndex(self);
            CompletableFuture<long[]> seen = new CompletableFuture<>();
            CompletableFuture<Void> firstImage = new CompletableFuture<>();
            MetadataWatcher watcher = MetadataWatcher.start(self, new MetadataWatcher.Listener() {
                @Override
                public void onImage(ClusterImage image) {
                    firstImage.complete(null);
                }

                @Override
                public void onEvent(MetadataEvent event) {
                    if (event.topic() != null && event.topic().name().equals("by-another-node")) {
                        seen.complete(new long[] {event.index(), ClientAccess.lastSeenIndex(self)});
                    }
                }
            });
            try {
                // The topic must come as an event, after the watcher's first image: made before that
                // image (a slow start under load), it would be in the image and never an event.
                firstImage.get(30, TimeUnit.SECONDS);
                TopicInfo created = other.submit(new CreateTopic(UUID.randomUUID(), "by-another-node", 1, 1,
                        Map.of()), TopicInfo.class).get(30, TimeUnit.SECONDS);
                long[] atEvent = seen.get(30, TimeUnit.SECONDS);
                assertTrue(atEvent[0] > ownWrite, "the topic was created after this node's own write: " + created);
                assertTrue(atEvent[1] >= atEvent[0], "when the listener hears of index " + atEvent[0]
                        + ", this node's reads wait for it (they wait for " + atEvent[1] + ")");
            } finally {
                watcher.close();
            }
        }
    }
}
