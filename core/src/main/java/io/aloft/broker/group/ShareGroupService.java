package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorRuntime;
import io.aloft.broker.group.share.ShareGroups;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareStatePersister;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Share groups (KIP-932) of the group coordinator, for the ShareGroupHeartbeat and
 * ShareGroupDescribe handlers and, as the {@link ShareGroupDirectory}, for the share admin APIs.
 * Each group lives in the shard of its {@code __consumer_offsets} partition beside the classic and
 * consumer groups ({@link GroupCoordinatorShard}); this is the service in front of them, mapping
 * the runtime's failures to Kafka's errors as {@link GroupCoordinator} does.
 *
 * <p>After a heartbeat whose subscribed topics have share partitions without state, their state is
 * initialized ({@link ShareStatePersister#initialize}, start offset -1: the share partition resolves
 * {@code share.auto.offset.reset} when it loads) and, once done, recorded as initialized in the
 * group, which assigns them from the members' next heartbeat on (as Kafka: a member that joins gets
 * its partitions at its second heartbeat). The heartbeat does not wait for it.
 *
 * <p>Thread-safe; futures complete on the shards' threads (or the persister's).
 */
public final class ShareGroupService implements ShareGroupDirectory {

    private static final Logger LOG = LoggerFactory.getLogger(ShareGroupService.class);

    private final GroupCoordinator coordinator;
    private final CoordinatorRuntime<GroupCoordinatorShard, GroupRecord> runtime;
    private final ShareStatePersister persister;

    ShareGroupService(GroupCoordinator coordinator, CoordinatorRuntime<GroupCoordinatorShard, GroupRecord> runtime,
                      ShareStatePersister persister) {
        this.coordinator = coordinator;
        this.runtime = runtime;
        this.persister = persister;
    }

    /** ShareGroupHeartbeat: join, heartbeat or leave; completes once the group's records are durable. */
    public CompletableFuture<ShareGroupHeartbeatResponseData> heartbeat(ShareGroupHeartbeatRequestData req,
                                                                        String clientId, String clientHost) {
        ShareGroupHeartbeatResponseData invalid = ShareGroups.validate(req);
        if (invalid != null) {
            return CompletableFuture.completedFuture(invalid);
        }
        String groupId = req.groupId();
        return runtime.write("share-group-heartbeat", coordinator.partitionFor(groupId),
                        s -> s.shareGroupHeartbeat(req, clientId, clientHost))
                .thenApply(result -> {
                    if (!result.toInitialize().isEmpty()) {
                        initialize(groupId, result.toInitialize());
                    }
                    return result.response();
                })
                .exceptionally(e -> new ShareGroupHeartbeatResponseData()
                        .setErrorCode(GroupCoordinator.errorFor(e).code()));
    }

    /**
     * Initializes the state of {@code partitions} (stateEpoch 0, start offset -1), then records in
     * the group those that succeeded; those that failed are asked for again at a later heartbeat.
     */
    private void initialize(String groupId, Map<Uuid, Set<Integer>> partitions) {
        Map<Uuid, Set<Integer>> done = new HashMap<>();
        Map<Uuid, Set<Integer>> failed = new HashMap<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        partitions.forEach((topic, parts) -> parts.forEach(p -> all.add(persister
                .initialize(new SharePartitionKey(groupId, topic, p), 0, -1L)
                .handle((v, e) -> {
                    synchronized (done) {
                        if (e == null) {
                            done.computeIfAbsent(topic, t -> new TreeSet<>()).add(p);
                        } else {
                            LOG.warn("share group {}: state of {}-{} not initialized, will retry", groupId, topic, p,
                                    e);
                            failed.computeIfAbsent(topic, t -> new TreeSet<>()).add(p);
                        }
                    }
                    return null;
                }))));
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenCompose(v -> {
            synchronized (done) {
                return runtime.write("share-group-initialized", coordinator.partitionFor(groupId),
                        s -> s.shareOps().initialized(groupId, Map.copyOf(done), Map.copyOf(failed)));
            }
        }).whenComplete((v, e) -> {
            if (e != null) {
                LOG.debug("share group {}: initialized partitions not recorded", groupId, e);
            }
        });
    }

    /** ShareGroupDescribe: each group from its shard; a group that is not a share group is not found. */
    public CompletableFuture<ShareGroupDescribeResponseData> describe(ShareGroupDescribeRequestData req) {
        List<CompletableFuture<ShareGroupDescribeResponseData.DescribedGroup>> described = new ArrayList<>();
        for (String groupId : req.groupIds()) {
            if (GroupCoordinator.invalidGroupId(groupId)) {
                described.add(CompletableFuture.completedFuture(new ShareGroupDescribeResponseData.DescribedGroup()
                        .setGroupId(groupId == null ? "" : groupId).setErrorCode(Errors.INVALID_GROUP_ID.code())));
                continue;
            }
            described.add(runtime.read("share-group-describe", coordinator.partitionFor(groupId),
                            s -> s.shareOps().describe(groupId))
                    .exceptionally(e -> new ShareGroupDescribeResponseData.DescribedGroup().setGroupId(groupId)
                            .setErrorCode(GroupCoordinator.errorFor(e).code())));
        }
        return GroupCoordinator.allInOrder(described)
                .thenApply(list -> new ShareGroupDescribeResponseData().setGroups(list));
    }

    // ---- ShareGroupDirectory -------------------------------------------------------------

    @Override
    public CompletableFuture<Optional<ShareGroupSummary>> describe(String groupId) {
        if (GroupCoordinator.invalidGroupId(groupId)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return runtime.read("share-group-summary", coordinator.partitionFor(groupId),
                s -> s.shareOps().summary(groupId)).exceptionallyCompose(ShareGroupService::asKafkaError);
    }

    @Override
    public CompletableFuture<Void> updateInitialized(String groupId, Map<Uuid, Set<Integer>> added,
                                                     Set<Uuid> removedTopics) {
        if (GroupCoordinator.invalidGroupId(groupId)) {
            return CompletableFuture.failedFuture(Errors.INVALID_GROUP_ID.exception());
        }
        return runtime.write("share-group-update-initialized", coordinator.partitionFor(groupId),
                        s -> s.shareOps().updateInitialized(groupId, added, removedTopics))
                .exceptionallyCompose(ShareGroupService::asKafkaError);
    }

    /** A Kafka exception the operation threw stays; the runtime's failures become their Kafka errors. */
    private static <T> CompletableFuture<T> asKafkaError(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof org.apache.kafka.common.errors.GroupIdNotFoundException
                || t instanceof org.apache.kafka.common.errors.GroupNotEmptyException) {
            return CompletableFuture.failedFuture(t);
        }
        return CompletableFuture.failedFuture(GroupCoordinator.errorFor(t).exception());
    }
}
