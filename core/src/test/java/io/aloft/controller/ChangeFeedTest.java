package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link MetadataWatcher} on a real three-voter quorum: it gets an image first, then every
 * broker and topic change in log order, and it keeps going, losing nothing, when the leader it
 * was polling stops and another is elected.
 */
class ChangeFeedTest {
    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"));

    @TempDir
    Path dir;

    /** What the watcher delivered, and the cluster it built from it. */
    private static final class Recorder implements MetadataWatcher.Listener {
        final List<String> calls = new ArrayList<>();
        final List<MetadataEvent> events = new ArrayList<>();
        final Map<Integer, BrokerInfo> brokers = new TreeMap<>();
        final Map<UUID, TopicInfo> topics = new TreeMap<>();
        long imageIndex = -1;

        @Override
        public synchronized void onImage(ClusterImage image) {
            calls.add("image");
            imageIndex = image.appliedIndex();
            brokers.clear();
            topics.clear();
            image.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            image.topics().forEach(t -> topics.put(t.topicId(), t));
            notifyAll();
        }

        @Override
        public synchronized void onEvent(MetadataEvent e) {
            calls.add("event");
            events.add(e);
            if (e.broker() != null) {
                brokers.put(e.broker().brokerId(), e.broker());
            }
            if (e.removedBrokerId() >= 0) {
                brokers.remove(e.removedBrokerId());
            }
            if (e.topic() != null) {
                topics.put(e.topic().topicId(), e.topic());
            }
            if (e.deletedTopic() != null) {
                topics.remove(e.deletedTopic().topicId());
            }
            notifyAll();
        }

        synchronized void awaitCalls(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (calls.size() < count) {
                long left = deadline - System.nanoTime();
                assertTrue(left > 0, "the watcher delivered " + calls.size() + " of " + count + " calls in 30 s");
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }

        synchronized List<String> describeEvents() {
            return events.stream().map(ChangeFeedTest::describe).toList();
        }
    }

    @Test
    void watcherGetsImageThenEveryChangeInOrder_acrossLeaderChange() throws Exception {
        // No session expiry: fencing would add broker events this test does not make.
        try (TestQuorum q = new TestQuorum(dir, 3, b -> b.sessionTimeoutMs(600_000));
                ControllerClient client = q.newClient()) {
            q.awaitLeader();
            Recorder recorder = new Recorder();
            try (MetadataWatcher watcher = MetadataWatcher.start(client, recorder)) {
                recorder.awaitCalls(1);
                assertEquals(List.of("image"), recorder.calls, "an image comes first");

                submit(client, new RegisterBroker(1, "b1", ENDPOINTS, null, client.supportedFeatures()));
                submit(client, new RegisterBroker(2, "b2", ENDPOINTS, null, client.supportedFeatures()));
                TopicInfo t1 = (TopicInfo) submit(client, new CreateTopic(UUID.randomUUID(), "t1", 2, 1, Map.of()));
                TopicInfo t1Altered = (TopicInfo) submit(client, new AlterTopicConfigs("t1",
                        Map.of("retention.ms", "1000"), List.of()));
                TopicInfo t2 = (TopicInfo) submit(client, new CreateTopic(UUID.randomUUID(), "t2", 2, 1, Map.of()));
                submit(client, new DeleteTopic("t1"));
                recorder.awaitCalls(1 + 6);

                int oldLeader = q.awaitLeader();
                q.stop(oldLeader);
                assertNotEquals(oldLeader, q.awaitLeader());

                TopicInfo t2Altered = (TopicInfo) submit(client, new AlterTopicConfigs("t2",
                        Map.of("cleanup.policy", "compact"), List.of()));
                submit(client, new RegisterBroker(3, "b3", ENDPOINTS, null, client.supportedFeatures()));
                submit(client, new UnregisterBroker(2)); // its partition of t2 moves to broker 3
                TopicInfo t3 = (TopicInfo) submit(client, new CreateTopic(UUID.randomUUID(), "t3", 2, 1, Map.of()));
                recorder.awaitCalls(1 + 11);

                assertEquals(List.of(
                        "broker 1 ACTIVE", "broker 2 ACTIVE", "topic t1", "topic t1", "topic t2", "deleted t1",
                        "topic t2", "broker 3 ACTIVE", "removed 2", "topic t2", "topic t3"),
                        recorder.describeEvents(), "events in log order");
                List<MetadataEvent> events = recorder.events;
                assertEquals(t1, events.get(2).topic());
                assertEquals(t1Altered, events.get(3).topic());
                assertEquals("1000", events.get(3).topic().configs().get("retention.ms"));
                assertEquals(t2, events.get(4).topic());
                assertEquals(t1Altered, events.get(5).deletedTopic(), "a deletion carries the topic's last state");
                assertEquals(t2Altered, events.get(6).topic());
                assertEquals(3, events.get(9).topic().partitions().stream()
                        .filter(p -> p.partition() == 1).findFirst().orElseThrow().brokerId(),
                        "t2's partition left broker 2 for broker 3");
                assertEquals(t3, events.get(10).topic());
                for (int i = 0; i < events.size(); i++) {
                    assertTrue(events.get(i).index() > recorder.imageIndex, "events follow the image");
                    if (i > 0) {
                        assertTrue(events.get(i).index() >= events.get(i - 1).index(), "log order at " + i);
                    }
                }
                assertEquals(events.get(8).index(), events.get(9).index(), "one command, one index");

                // Nothing lost: what the watcher built equals the controller's own image.
                ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class)
                        .get(30, TimeUnit.SECONDS);
                synchronized (recorder) {
                    assertEquals(image.brokers(), List.copyOf(recorder.brokers.values()));
                    assertEquals(image.topics(), List.copyOf(recorder.topics.values()));
                    assertEquals(1, recorder.calls.stream().filter("image"::equals).count(),
                            "no second image: the new leader served the watcher's position from its own feed");
                }
            }
        }
    }

    private static Object submit(ControllerClient client, Object command) throws Exception {
        return client.submit(command).get(60, TimeUnit.SECONDS);
    }

    private static String describe(MetadataEvent e) {
        if (e.broker() != null) {
            return "broker " + e.broker().brokerId() + " " + e.broker().state();
        } else if (e.removedBrokerId() >= 0) {
            return "removed " + e.removedBrokerId();
        } else if (e.topic() != null) {
            return "topic " + e.topic().name();
        }
        return "deleted " + e.deletedTopic().name();
    }
}
