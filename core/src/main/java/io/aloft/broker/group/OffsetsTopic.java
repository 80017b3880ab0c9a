package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.client.ControllerClient;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

/**
 * {@code __consumer_offsets} as the group coordinator's internal topic: how it is created, and the
 * {@link CoordinatorTopic} that follows its leadership so the coordinator serves exactly the
 * partitions this broker leads. Stateless.
 */
public final class OffsetsTopic {

    /**
     * Settings of the internal topic: compacted, as in Kafka, so what the coordinator deleted by
     * writing tombstones (offsets.retention.minutes, DeleteGroups, OffsetDelete) and offsets
     * committed over really leave storage; never aged out by time or size, since a record dropped by
     * retention would silently lose a live group's offsets; 100 MiB segments, Kafka's
     * {@code offsets.topic.segment.bytes}. An existing topic missing one of these gets it at start.
     */
    static final Map<String, String> TOPIC_CONFIGS = Map.of(
            LogConfig.CLEANUP_POLICY_CONFIG, "compact",
            LogConfig.SEGMENT_BYTES_CONFIG, "104857600",
            LogConfig.RETENTION_MS_CONFIG, "-1",
            LogConfig.RETENTION_BYTES_CONFIG, "-1");

    private OffsetsTopic() {
    }

    /**
     * The follower of {@code __consumer_offsets} for {@code coordinator}; {@link CoordinatorTopic#start}
     * loads the partitions this broker leads, and {@link CoordinatorTopic#ensureCreated} (on the
     * first FindCoordinator) creates the topic.
     *
     * @param partitions offsets.topic.num.partitions: the partition count when the topic is created
     * @param threads makes the loader thread
     */
    public static CoordinatorTopic follower(ControllerClient controller, MetadataCache cache, int nodeId,
            GroupCoordinator coordinator, int partitions, ThreadFactory threads) {
        return new CoordinatorTopic(controller, cache, nodeId, PartitionGroupLog.TOPIC, partitions, TOPIC_CONFIGS,
                PartitionLog.STREAMS_PER_PARTITION, coordinator, threads);
    }
}
