package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.metadata.MetadataCache;
import java.util.List;

/**
 * The handlers of the group APIs, all served by one {@link GroupCoordinator}: the classic ones and
 * the KIP-848 consumer protocol's.
 */
public final class GroupHandlers {
    private GroupHandlers() {
    }

    /**
     * @param createOffsetsTopic starts creating {@code __consumer_offsets} (FindCoordinator calls it
     *     while the topic does not exist)
     */
    public static List<ApiHandler<?>> create(GroupCoordinator coordinator, MetadataCache cache,
            Runnable createOffsetsTopic) {
        return create(coordinator, cache, createOffsetsTopic, null);
    }

    /**
     * @param transactions {@code __transaction_state} for FindCoordinator's key type 1, or null while
     *     transactions are off
     */
    public static List<ApiHandler<?>> create(GroupCoordinator coordinator, MetadataCache cache,
            Runnable createOffsetsTopic, FindCoordinatorHandler.CoordinatorKeys transactions) {
        return create(coordinator, cache, createOffsetsTopic, transactions, null);
    }

    /**
     * @param shares {@code __share_group_state} for FindCoordinator's key type 2, or null while share
     *     groups are off
     */
    public static List<ApiHandler<?>> create(GroupCoordinator coordinator, MetadataCache cache,
            Runnable createOffsetsTopic, FindCoordinatorHandler.CoordinatorKeys transactions,
            FindCoordinatorHandler.CoordinatorKeys shares) {
        return List.of(
                new FindCoordinatorHandler(cache, new FindCoordinatorHandler.CoordinatorKeys(PartitionGroupLog.TOPIC,
                        coordinator::partitionFor, createOffsetsTopic), transactions, shares),
                new JoinGroupHandler(coordinator),
                new SyncGroupHandler(coordinator),
                new HeartbeatHandler(coordinator),
                new LeaveGroupHandler(coordinator),
                new OffsetCommitHandler(coordinator, cache),
                new OffsetFetchHandler(coordinator, cache),
                new ListGroupsHandler(coordinator),
                new DescribeGroupsHandler(coordinator),
                new DeleteGroupsHandler(coordinator),
                new OffsetDeleteHandler(coordinator),
                new ConsumerGroupHeartbeatHandler(coordinator),
                new ConsumerGroupDescribeHandler(coordinator));
    }
}
