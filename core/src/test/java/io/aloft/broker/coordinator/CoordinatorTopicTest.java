package io.aloft.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Following a coordinator topic's leadership: what a broker loads and unloads as the metadata cache
 * moves the topic's partitions (no controller: the topic exists already).
 */
class CoordinatorTopicTest {
    private static final int NODE = 1;
    private static final String TOPIC = "__coordinator_test";
    private static final UUID ID = new UUID(7, 7);

    /** Records what the coordinator was told; served = loaded and not unloaded since. */
    private static final class Recorder implements CoordinatorTopic.Partitions {
        final List<String> calls = new ArrayList<>();
        final Set<Integer> served = new HashSet<>();

        @Override
        public synchronized void loadPartition(int partition) {
            calls.add("load " + partition);
            served.add(partition);
        }

        @Override
        public synchronized void unloadPartition(int partition) {
            calls.add("unload " + partition);
            served.remove(partition);
        }

        @Override
        public synchronized boolean isServing(int partition) {
            return served.contains(partition);
        }

        synchronized List<String> calls() {
            return List.copyOf(calls);
        }
    }

    private static TopicInfo topic(int broker, int leaderEpoch) {
        return new TopicInfo(ID, TOPIC, Map.of(), List.of(new PartitionInfo(0, broker, leaderEpoch, List.of(1L))));
    }

    private static void awaitCalls(Recorder r, List<String> want) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!r.calls().equals(want)) {
            assertTrue(System.nanoTime() < deadline, "calls " + r.calls() + ", expected " + want);
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    @Test
    void movedAwayThenHere_unloadedThenLoaded() throws Exception {
        MetadataCache cache = new MetadataCache();
        cache.onEvent(MetadataEvent.topicChanged(1, topic(NODE, 0)));
        Recorder r = new Recorder();
        try (CoordinatorTopic follower = new CoordinatorTopic(null, cache, NODE, TOPIC, 1, Map.of(), 1, r,
                Executors.defaultThreadFactory())) {
            follower.start();
            assertEquals(List.of("load 0"), r.calls());
            cache.onEvent(MetadataEvent.topicChanged(2, topic(2, 1)));
            awaitCalls(r, List.of("load 0", "unload 0"));
            cache.onEvent(MetadataEvent.topicChanged(3, topic(NODE, 2)));
            awaitCalls(r, List.of("load 0", "unload 0", "load 0"));
        }
    }

    /**
     * Moved away and back before the follower looked (two reassignments in a row; the cache shows
     * only the second): another broker may have coordinated the partition in between and written to
     * its log, so the state loaded at the old leader epoch is stale and is loaded again.
     */
    @Test
    void ledAgainAtAHigherLeaderEpoch_reloaded() throws Exception {
        MetadataCache cache = new MetadataCache();
        cache.onEvent(MetadataEvent.topicChanged(1, topic(NODE, 0)));
        Recorder r = new Recorder();
        try (CoordinatorTopic follower = new CoordinatorTopic(null, cache, NODE, TOPIC, 1, Map.of(), 1, r,
                Executors.defaultThreadFactory())) {
            follower.start();
            cache.onEvent(MetadataEvent.topicChanged(3, topic(NODE, 2)));
            awaitCalls(r, List.of("load 0", "unload 0", "load 0"));
            // Nothing else changes: it stays loaded (the next looks reload nothing).
            cache.onEvent(MetadataEvent.topicChanged(4, topic(NODE, 2)));
            TimeUnit.MILLISECONDS.sleep(1_500); // a periodic look too, to see it leaves the partition be
            assertEquals(List.of("load 0", "unload 0", "load 0"), r.calls());
        }
    }
}
