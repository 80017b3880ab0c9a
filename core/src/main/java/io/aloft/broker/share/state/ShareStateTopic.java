package io.aloft.broker.share.state;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.coordinator.PartitionCoordinatorLog;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.model.TopicInfo;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;
import org.apache.kafka.common.internals.Topic;

/**
 * {@code __share_group_state} as the share coordinator's internal topic: its settings, the
 * {@link CoordinatorLog} on its partitions, and the {@link CoordinatorTopic} that follows its
 * leadership so the coordinator serves exactly the partitions this broker leads. Stateless.
 */
public final class ShareStateTopic {

    /** The internal topic, under Kafka's name so tools that hide internal topics hide it too. */
    public static final String TOPIC = Topic.SHARE_GROUP_STATE_TOPIC_NAME;

    /**
     * Settings of the topic: compacted, as in Kafka (each record is a share partition's whole state,
     * so only the last one per key matters, and a deleted state leaves as a tombstone); never aged
     * out by time or size, which would lose acknowledgements; 100 MiB segments, Kafka's
     * {@code share.coordinator.state.topic.segment.bytes}.
     */
    static final Map<String, String> TOPIC_CONFIGS = Map.of(
            LogConfig.CLEANUP_POLICY_CONFIG, "compact",
            LogConfig.SEGMENT_BYTES_CONFIG, "104857600",
            LogConfig.RETENTION_MS_CONFIG, "-1",
            LogConfig.RETENTION_BYTES_CONFIG, "-1");

    private ShareStateTopic() {
    }

    /**
     * The share coordinator over the partitions of {@code __share_group_state}.
     *
     * @param statePartitions share.coordinator.state.topic.num.partitions
     * @param clock stamps records
     * @param threads the shards' threads; the caller closes them after the coordinator
     */
    public static ShareCoordinator coordinator(int statePartitions, PartitionManager partitions, LongSupplier clock,
            CoordinatorTimer timer, CoordinatorThreads threads, MetadataCache cache) {
        CoordinatorLog<ShareStateRecord> log = new PartitionCoordinatorLog<>(partitions, TOPIC,
                ShareStateRecordSerde.INSTANCE, clock);
        return new ShareCoordinator(statePartitions, log, timer, threads, topics(cache));
    }

    /** Topic ids to partition counts, as the metadata cache knows them. */
    public static ShareCoordinator.Topics topics(MetadataCache cache) {
        return id -> {
            TopicInfo t = cache.view().topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
            return t == null ? -1 : t.partitions().size();
        };
    }

    /**
     * The follower of {@code __share_group_state} for {@code coordinator}; {@link CoordinatorTopic#start}
     * loads the partitions this broker leads, {@link CoordinatorTopic#ensureCreated} (on the first
     * FindCoordinator of key type share, or the persister's first call) creates the topic.
     *
     * @param partitions share.coordinator.state.topic.num.partitions: the partition count when created
     * @param threads makes the loader thread
     */
    public static CoordinatorTopic follower(ControllerClient controller, MetadataCache cache, int nodeId,
            ShareCoordinator coordinator, int partitions, ThreadFactory threads) {
        return new CoordinatorTopic(controller, cache, nodeId, TOPIC, partitions, TOPIC_CONFIGS,
                PartitionLog.STREAMS_PER_PARTITION, coordinator, threads);
    }
}
