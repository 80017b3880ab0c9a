package io.aloft.broker.share;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;

/**
 * What the share-group admin APIs (Describe/Alter/DeleteShareGroupOffsets) need from the group
 * coordinator: the group, and which of its share partitions have state. Implemented by the group
 * coordinator for the groups it coordinates on this broker.
 *
 * <p>Futures fail with the Kafka {@link org.apache.kafka.common.errors.ApiException} to answer:
 * {@code NotCoordinatorException}, {@code CoordinatorLoadInProgressException},
 * {@code GroupIdNotFoundException} (also when the id is a group of another type, as Kafka answers
 * the share admin APIs for a consumer group), {@code GroupNotEmptyException}. Thread-safe.
 */
public interface ShareGroupDirectory {

    /** The share group; empty when there is no group of that id. */
    CompletableFuture<Optional<ShareGroupSummary>> describe(String groupId);

    /**
     * Records that the state of {@code added} share partitions was initialized (AlterShareGroupOffsets)
     * and that of the topics {@code removedTopics} deleted (DeleteShareGroupOffsets), so describes list
     * what has state; creates the (empty) share group if {@code added} is not empty and there is none.
     * Fails with GroupNotEmptyException when the group has members.
     */
    CompletableFuture<Void> updateInitialized(String groupId, Map<Uuid, Set<Integer>> added, Set<Uuid> removedTopics);

    /**
     * A share group as the group coordinator knows it. Immutable.
     *
     * @param state Kafka's share group state name: {@code Empty}, {@code Stable}, {@code Dead}
     * @param initializedPartitions the share partitions with state, by topic id
     */
    record ShareGroupSummary(String groupId, String state, int groupEpoch, int memberCount,
            Set<String> subscribedTopicNames, Map<Uuid, Set<Integer>> initializedPartitions) {
        public ShareGroupSummary {
            subscribedTopicNames = Set.copyOf(subscribedTopicNames);
            initializedPartitions = Map.copyOf(initializedPartitions);
        }
    }
}
