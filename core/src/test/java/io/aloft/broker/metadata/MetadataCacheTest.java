package io.aloft.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The broker's metadata view: events from the change feed, this broker's own writes, and their order. */
class MetadataCacheTest {
    private static final UUID ID = new UUID(1, 1);

    private static TopicInfo topic(int... brokerAndEpoch) {
        List<PartitionInfo> partitions = new java.util.ArrayList<>();
        for (int i = 0; i < brokerAndEpoch.length; i += 2) {
            partitions.add(new PartitionInfo(i / 2, brokerAndEpoch[i], brokerAndEpoch[i + 1], List.of(10L + i)));
        }
        return new TopicInfo(ID, "t", Map.of(), partitions);
    }

    @Test
    void olderFeedEventAfterOwnWrite_noPartitionGoesBackToALowerLeaderEpoch() {
        MetadataCache cache = new MetadataCache();
        cache.onEvent(MetadataEvent.topicChanged(1, topic(1, 0, 1, 0)));
        // This broker moved partition 0 to broker 3 (the controller's reply), then partition 1 to 2.
        cache.putTopic(topic(3, 1, 2, 1));
        // The feed then delivers the first move's event, which still has partition 1 on broker 1 at
        // epoch 0, and the second one's, which has both moves.
        cache.onEvent(MetadataEvent.topicChanged(2, topic(3, 1, 1, 0)));
        assertEquals(topic(3, 1, 2, 1), cache.view().topic("t"));
        cache.onEvent(MetadataEvent.topicChanged(3, topic(3, 1, 2, 1)));
        assertEquals(topic(3, 1, 2, 1), cache.view().topic("t"));
        // Later moves go through.
        cache.onEvent(MetadataEvent.topicChanged(4, topic(1, 2, 2, 1)));
        assertEquals(topic(1, 2, 2, 1), cache.view().topic("t"));
    }

    @Test
    void topicListeners_toldOfFeedChangesAndOwnWrites() {
        MetadataCache cache = new MetadataCache();
        AtomicInteger told = new AtomicInteger();
        cache.onTopicsChanged(told::incrementAndGet);
        cache.onEvent(MetadataEvent.topicChanged(1, topic(1, 0)));
        cache.putTopic(topic(2, 1));
        assertEquals(2, told.get());
    }
}
