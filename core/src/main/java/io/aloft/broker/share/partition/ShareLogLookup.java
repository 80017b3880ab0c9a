package io.aloft.broker.share.partition;

import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.TopicInfo;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where share partitions find the log of a topic partition this broker leads. Thread-safe.
 */
@FunctionalInterface
public interface ShareLogLookup {

    /**
     * The partition's log; fails with a {@link PartitionLogException}: UNKNOWN_TOPIC_ID (no topic
     * has that id, e.g. deleted or recreated), UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER.
     */
    CompletableFuture<PartitionLog> leaderLog(TopicIdPartition tp);

    /** The broker's: the topic is found by id in {@code cache}, its log opened by {@code partitions}. */
    static ShareLogLookup of(PartitionManager partitions, MetadataCache cache) {
        return tp -> {
            UUID id = new UUID(tp.topicId().getMostSignificantBits(), tp.topicId().getLeastSignificantBits());
            TopicInfo topic = cache.view().topic(id);
            if (topic == null) {
                return CompletableFuture.failedFuture(new PartitionLogException(Errors.UNKNOWN_TOPIC_ID,
                        "no topic has id " + tp.topicId()));
            }
            return partitions.leaderLog(new TopicPartition(topic.name(), tp.partition()));
        };
    }
}
