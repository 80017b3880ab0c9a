package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorRuntime;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.coordinator.TransactionMarker;
import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.ConsumerGroupDescriber;
import io.aloft.broker.log.VerificationGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The group coordinator, for the request handlers of the classic protocol (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup), the consumer protocol of KIP-848 (ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe), and of both (OffsetCommit, OffsetFetch, ListGroups, DescribeGroups,
 * DeleteGroups, OffsetDelete). Share groups (KIP-932) live here too, served through
 * {@link ShareGroupService} once {@link #enableShareGroups} is called. Each method takes the request's generated message and API version
 * and returns the response message (throttle time left for the handler to set).
 *
 * <p>A service in front of a {@link CoordinatorRuntime}: a group lives in the shard of its
 * {@code __consumer_offsets} partition ({@link #partitionFor}), every request for it runs there
 * ({@link GroupCoordinatorShard}), and every offset commit and group change is a record appended to
 * that partition and replayed when the partition loads ({@link #loadPartition}). Only groups of
 * loaded partitions are served; others get NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while
 * loading). Kafka errors are mapped here, at one place, from the runtime's exceptions.
 *
 * <p>Thread-safe: requests from any number of connections may call in at once; futures complete on
 * the shards' threads.
 */
public final class GroupCoordinator implements CoordinatorTopic.Partitions, AutoCloseable {

    /** The group type ListGroups v5+ reports for every group here. */
    static final String CLASSIC_GROUP_TYPE = "classic";

    private final GroupCoordinatorConfig config;
    private final CoordinatorRuntime<GroupCoordinatorShard, GroupRecord> runtime;
    /** The runtime's log, asked directly only to start verifying a transaction (TxnOffsetCommit). */
    private final CoordinatorLog<GroupRecord> log;
    private final OffsetFetchShapes fetchShapes;
    /** Threads this coordinator made itself (and closes), or null when the caller's are used. */
    private final CoordinatorThreads ownThreads;
    /** What shards made from now on serve share groups with; see {@link #enableShareGroups}. */
    private volatile ShareGroupSetup shareSetup = ShareGroupSetup.DISABLED;
    private volatile ShareGroupService shareGroups;

    /**
     * @param log the partitions of {@code __consumer_offsets}
     * @param timer time and delayed tasks (session and rebalance timeouts, retention)
     * @param topicIds resolves topic ids for OffsetCommit/OffsetFetch v10+; {@link TopicIdResolver#NONE}
     *     answers such requests with UNKNOWN_TOPIC_ID
     * @param threads the shards' threads (see {@code group.coordinator.threads}); the caller closes them
     *     after this coordinator
     */
    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog<GroupRecord> log, CoordinatorTimer timer,
            TopicIdResolver topicIds, CoordinatorThreads threads) {
        this(config, log, timer, topicIds, ClusterTopics.NONE, threads, null);
    }

    /**
     * @param cluster the topics consumer groups (KIP-848) subscribe to
     */
    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog<GroupRecord> log, CoordinatorTimer timer,
            TopicIdResolver topicIds, ClusterTopics cluster, CoordinatorThreads threads) {
        this(config, log, timer, topicIds, cluster, threads, null);
    }

    /**
     * A coordinator whose shards run on the threads that call it ({@link CoordinatorThreads#callerRuns}):
     * for tests driving it from one thread over an in-memory log, which get their answers on return.
     */
    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog<GroupRecord> log, CoordinatorTimer timer) {
        this(config, log, timer, TopicIdResolver.NONE, ClusterTopics.NONE, null, CoordinatorThreads.callerRuns());
    }

    /** As {@link #GroupCoordinator(GroupCoordinatorConfig, CoordinatorLog, CoordinatorTimer)}, with topics. */
    public GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog<GroupRecord> log, CoordinatorTimer timer,
            TopicIdResolver topicIds, ClusterTopics cluster) {
        this(config, log, timer, topicIds, cluster, null, CoordinatorThreads.callerRuns());
    }

    private GroupCoordinator(GroupCoordinatorConfig config, CoordinatorLog<GroupRecord> log, CoordinatorTimer timer,
            TopicIdResolver topicIds, ClusterTopics cluster, CoordinatorThreads threads,
            CoordinatorThreads ownThreads) {
        this.config = config;
        this.log = log;
        this.ownThreads = ownThreads;
        this.runtime = new CoordinatorRuntime<>("group", log, timer, threads != null ? threads : ownThreads,
                ctx -> new GroupCoordinatorShard(config, ctx, topicIds, cluster, shareSetup));
        this.fetchShapes = new OffsetFetchShapes(topicIds);
    }

    /**
     * Serves share groups (KIP-932): ShareGroupHeartbeat and ShareGroupDescribe through the returned
     * service, which is also the {@link io.aloft.broker.share.ShareGroupDirectory} of the share admin
     * APIs. Call before any partition is loaded (shards take the setup when they load).
     *
     * @param persister where share partitions' state is initialized (when first assigned) and deleted
     *     (with their group)
     * @param listener told when a member leaves or its session times out
     */
    public ShareGroupService enableShareGroups(io.aloft.broker.share.ShareGroupConfig shareConfig,
            io.aloft.broker.share.ShareGroupSettingsSource settings,
            io.aloft.broker.share.state.ShareStatePersister persister, io.aloft.broker.share.ShareGroupListener listener) {
        shareSetup = new ShareGroupSetup(shareConfig, settings, java.util.Objects.requireNonNull(persister), listener);
        shareGroups = new ShareGroupService(this, runtime, persister);
        return shareGroups;
    }

    /** The share groups' service, or null unless {@link #enableShareGroups} was called. */
    public ShareGroupService shareGroups() {
        return shareGroups;
    }

    /** Whether the KIP-848 consumer protocol is served (group.coordinator.rebalance.protocols). */
    public boolean consumerProtocolEnabled() {
        return config.consumerProtocolEnabled();
    }

    /** The __consumer_offsets partition of {@code groupId}: Kafka's abs(hashCode) % partitions. */
    public int partitionFor(String groupId) {
        return CoordinatorTopic.partitionFor(groupId, config.offsetsTopicPartitions());
    }

    // ---- ownership -----------------------------------------------------------------------

    /**
     * Takes ownership of {@code partition}: replays its records (blocking until done), restores its
     * groups (members get a fresh session timeout to heartbeat in), then serves them. Loading an
     * owned partition again does nothing.
     *
     * @throws CorruptGroupRecordException if a record cannot be read; the partition stays unowned
     */
    @Override
    public void loadPartition(int partition) {
        runtime.load(partition);
    }

    /** Loads every partition of __consumer_offsets: what a single-node broker does at start. */
    public void loadAll() {
        for (int p = 0; p < config.offsetsTopicPartitions(); p++) {
            loadPartition(p);
        }
    }

    /** Gives up {@code partition}: its groups are dropped and their waiting members told NOT_COORDINATOR. */
    @Override
    public void unloadPartition(int partition) {
        runtime.unload(partition);
    }

    @Override
    public boolean isServing(int partition) {
        return runtime.status(partition) != CoordinatorRuntime.Status.NOT_SERVED;
    }

    // ---- membership ----------------------------------------------------------------------

    /** JoinGroup; completes when the rebalance does (or at once on error, or MEMBER_ID_REQUIRED). */
    public CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData req, short version,
                                                              String clientId, String clientHost) {
        MembershipManager.JoinRequest jr = MembershipManager.JoinRequest.of(req, version, clientId, clientHost);
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(Responses.joinError(Errors.INVALID_GROUP_ID, jr.memberId(), version));
        }
        return write("join-group", req.groupId(), (s, response) -> s.join(req.groupId(), jr, response),
                error -> Responses.joinError(error, jr.memberId(), version));
    }

    /** SyncGroup; a follower's completes when the leader's assignment is durable. */
    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData req, short version) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(Responses.syncError(Errors.INVALID_GROUP_ID));
        }
        return write("sync-group", req.groupId(), (s, response) -> s.sync(req, version, response),
                Responses::syncError);
    }

    public CompletableFuture<HeartbeatResponseData> heartbeat(HeartbeatRequestData req, short version) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(
                    new HeartbeatResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return runtime.write("heartbeat", partitionFor(req.groupId()), s -> s.heartbeat(req))
                .exceptionally(e -> new HeartbeatResponseData().setErrorCode(errorFor(e).code()));
    }

    public CompletableFuture<LeaveGroupResponseData> leaveGroup(LeaveGroupRequestData req, short version) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(
                    new LeaveGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return write("leave-group", req.groupId(), (s, response) -> s.leave(req, version, response),
                error -> new LeaveGroupResponseData().setErrorCode(error.code()));
    }

    // ---- consumer groups (KIP-848) -------------------------------------------------------

    /** ConsumerGroupHeartbeat: join, heartbeat or leave; completes once the group's records are durable. */
    public CompletableFuture<ConsumerGroupHeartbeatResponseData> consumerGroupHeartbeat(
            ConsumerGroupHeartbeatRequestData req, short version, String clientId, String clientHost) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(new ConsumerGroupHeartbeatResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("GroupId can't be empty."));
        }
        return runtime.write("consumer-group-heartbeat", partitionFor(req.groupId()),
                        s -> s.consumerGroupHeartbeat(req, version, clientId, clientHost))
                .exceptionally(e -> new ConsumerGroupHeartbeatResponseData().setErrorCode(errorFor(e).code()));
    }

    /** ConsumerGroupDescribe: each group from its shard; a group that is not a consumer group is not found. */
    public CompletableFuture<ConsumerGroupDescribeResponseData> consumerGroupDescribe(
            ConsumerGroupDescribeRequestData req, short version) {
        List<CompletableFuture<ConsumerGroupDescribeResponseData.DescribedGroup>> described = new ArrayList<>();
        for (String groupId : req.groupIds()) {
            if (invalidGroupId(groupId)) {
                described.add(CompletableFuture.completedFuture(new ConsumerGroupDescribeResponseData.DescribedGroup()
                        .setGroupId(groupId == null ? "" : groupId).setErrorCode(Errors.INVALID_GROUP_ID.code())));
                continue;
            }
            described.add(runtime.read("consumer-group-describe", partitionFor(groupId),
                            s -> s.consumerGroupDescribe(groupId))
                    .exceptionally(e -> new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(groupId)
                            .setErrorCode(errorFor(e).code())));
        }
        return allInOrder(described).thenApply(list -> new ConsumerGroupDescribeResponseData().setGroups(list));
    }

    // ---- offsets -------------------------------------------------------------------------

    /** OffsetCommit; completes once the offsets are durable in the group log. */
    public CompletableFuture<OffsetCommitResponseData> commitOffsets(OffsetCommitRequestData req, short version) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(OffsetManager.commitError(req, version, Errors.INVALID_GROUP_ID));
        }
        return write("offset-commit", req.groupId(), (s, response) -> s.commitOffsets(req, version, response),
                error -> OffsetManager.commitError(req, version, error));
    }

    /**
     * OffsetFetch, single-group (v1-7) or multi-group (v8+) form. With requireStable (v7+, KIP-447)
     * partitions with offsets pending in an open transaction get UNSTABLE_OFFSET_COMMIT.
     */
    public CompletableFuture<OffsetFetchResponseData> fetchOffsets(OffsetFetchRequestData req, short version) {
        if (version < 8) {
            String groupId = req.groupId();
            if (groupId == null) {
                return CompletableFuture.completedFuture(
                        fetchShapes.singleGroupError(req, version, Errors.INVALID_GROUP_ID));
            }
            List<OffsetManager.TopicQuery> queries = fetchShapes.queries(req);
            return runtime.read("offset-fetch", partitionFor(groupId), 
                            s -> s.fetchOffsets(groupId, queries, false, version >= 7 && req.requireStable()))
                    .thenApply(fetchShapes::singleGroup)
                    .exceptionally(e -> fetchShapes.singleGroupError(req, version, errorFor(e)));
        }
        boolean byId = version >= 10;
        List<CompletableFuture<OffsetFetchResponseGroup>> groups = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup rg : req.groups()) {
            String groupId = rg.groupId();
            if (groupId == null) {
                groups.add(CompletableFuture.completedFuture(fetchShapes.groupError(null, Errors.INVALID_GROUP_ID)));
                continue;
            }
            List<OffsetManager.TopicQuery> queries = fetchShapes.queries(rg, byId);
            // v9+ names the member asking, which a consumer group (KIP-848) checks.
            groups.add(runtime.read("offset-fetch", partitionFor(groupId),
                            s -> s.fetchOffsets(groupId, rg.memberId(), rg.memberEpoch(), queries, byId,
                                    req.requireStable()))
                    .thenApply(result -> result.error() != Errors.NONE ? fetchShapes.groupError(groupId, result.error())
                            : fetchShapes.group(groupId, result.topics(), byId))
                    .exceptionally(e -> fetchShapes.groupError(groupId, errorFor(e))));
        }
        return allInOrder(groups).thenApply(list -> new OffsetFetchResponseData().setGroups(list));
    }

    /**
     * TxnOffsetCommit (KIP-98, KIP-447): the offsets are written in the producer's transaction and
     * stay pending, invisible to OffsetFetch, until {@link #completeTransaction} commits them.
     * Completes once they are durable.
     */
    public CompletableFuture<TxnOffsetCommitResponseData> txnCommitOffsets(TxnOffsetCommitRequestData req) {
        return txnCommitOffsets(req, null);
    }

    /**
     * {@link #txnCommitOffsets(TxnOffsetCommitRequestData)} of a transaction checked with its
     * coordinator (KIP-890): the offsets are written with {@code guard}, from
     * {@link #startTransactionVerification}, so they are refused (INVALID_TXN_STATE) if they would
     * open the producer's transaction in the group's partition after it ended there since the check.
     *
     * @param guard null to check nothing
     */
    public CompletableFuture<TxnOffsetCommitResponseData> txnCommitOffsets(TxnOffsetCommitRequestData req,
            VerificationGuard guard) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(TxnOffsetManager.errorResponse(req, Errors.INVALID_GROUP_ID));
        }
        return write("txn-offset-commit", req.groupId(), (s, response) -> s.txnCommitOffsets(req, guard, response),
                error -> TxnOffsetManager.errorResponse(req, error));
    }

    /**
     * Before a TxnOffsetCommit's transaction is checked with its coordinator: Kafka's
     * {@code maybeStartTransactionVerification} on the group's {@code __consumer_offsets} partition
     * (see {@link CoordinatorLog#startTransactionVerification}). SENTINEL: the producer's transaction
     * is open there at this epoch already, nothing to check; null: the log tracks no transactions.
     * Fails with NotLeaderOrFollowerException when the partition is not led here.
     */
    public CompletableFuture<VerificationGuard> startTransactionVerification(String groupId, long producerId,
            short producerEpoch) {
        return log.startTransactionVerification(partitionFor(groupId), producerId, producerEpoch);
    }

    /**
     * Ends a transaction in one {@code __consumer_offsets} partition (what WriteTxnMarkers asks of
     * the group coordinator): writes the COMMIT ({@code commit}) or ABORT marker of the producer
     * into the partition through the partition's shard, so it lands in the log in order with the
     * shard's other records, and once it is durable commits or drops the producer's pending offsets
     * in every group of the partition. Writing the same marker again is harmless (nothing is left
     * pending). The partition checks the marker as a data partition does.
     *
     * @return completes once the marker is durable; fails with NotCoordinatorException (the
     *     partition is not served here), CoordinatorLoadInProgressException, or the partition's
     *     refusal: InvalidProducerEpochException (stale producer epoch),
     *     TransactionCoordinatorFencedException (an older coordinator epoch than the last marker's),
     *     or another Kafka exception of the log
     */
    public CompletableFuture<Void> completeTransaction(TopicPartition offsetsPartition, long producerId,
            short producerEpoch, int coordinatorEpoch, boolean commit) {
        if (!PartitionGroupLog.TOPIC.equals(offsetsPartition.topic())) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(offsetsPartition
                    + " is not a partition of " + PartitionGroupLog.TOPIC));
        }
        TransactionMarker marker = new TransactionMarker(producerId, producerEpoch, coordinatorEpoch, commit);
        return runtime.write("complete-transaction", offsetsPartition.partition(),
                s -> s.completeTransaction(marker));
    }

    /** OffsetDelete; completes once the tombstones are durable. */
    public CompletableFuture<OffsetDeleteResponseData> deleteOffsets(OffsetDeleteRequestData req, short version) {
        if (invalidGroupId(req.groupId())) {
            return CompletableFuture.completedFuture(
                    new OffsetDeleteResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return write("offset-delete", req.groupId(), (s, response) -> s.deleteOffsets(req, response),
                error -> new OffsetDeleteResponseData().setErrorCode(error.code()));
    }

    // ---- groups --------------------------------------------------------------------------

    /** ListGroups over the loaded partitions, filtered by state (v4+, case-insensitive) and type (v5+). */
    public CompletableFuture<ListGroupsResponseData> listGroups(ListGroupsRequestData req, short version) {
        List<String> states = version >= 4 ? lower(req.statesFilter()) : List.of();
        List<String> types = version >= 5 ? lower(req.typesFilter()) : List.of();
        ListGroupsResponseData response = new ListGroupsResponseData();
        if (runtime.anyLoading()) {
            response.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        }
        List<CompletableFuture<List<ListedGroup>>> shards = new ArrayList<>();
        for (CompletableFuture<List<ListedGroup>> f : runtime.readAll("list-groups", GroupCoordinatorShard::listGroups)) {
            // A shard unloaded meanwhile has nothing to list here any more.
            shards.add(f.exceptionally(e -> List.of()));
        }
        return allInOrder(shards).thenApply(lists -> {
            for (List<ListedGroup> list : lists) {
                for (ListedGroup g : list) {
                    if ((states.isEmpty() || states.contains(g.groupState().toLowerCase(Locale.ROOT)))
                            && (types.isEmpty() || types.contains(g.groupType().toLowerCase(Locale.ROOT)))) {
                        response.groups().add(g);
                    }
                }
            }
            response.groups().sort((a, b) -> a.groupId().compareTo(b.groupId()));
            return response;
        });
    }

    /**
     * Committed offsets of the groups of every partition this coordinator serves, at most
     * {@code limitPerPartition} per partition (for the lag meters: read on each shard's thread).
     */
    public CompletableFuture<List<CommittedOffset>> committedOffsets(int limitPerPartition) {
        List<CompletableFuture<List<CommittedOffset>>> shards = new ArrayList<>();
        for (CompletableFuture<List<CommittedOffset>> f : runtime.readAll("committed-offsets",
                s -> s.committedOffsets(limitPerPartition))) {
            shards.add(f.exceptionally(e -> List.of())); // unloaded meanwhile: nothing of it here any more
        }
        return allInOrder(shards).thenApply(lists -> lists.stream().flatMap(List::stream).toList());
    }

    private static List<String> lower(List<String> values) {
        return values == null ? List.of() : values.stream().map(s -> s.toLowerCase(Locale.ROOT)).toList();
    }

    /** DescribeGroups; see {@link GroupCoordinatorShard#describe}. */
    public CompletableFuture<DescribeGroupsResponseData> describeGroups(DescribeGroupsRequestData req, short version) {
        List<CompletableFuture<DescribedGroup>> described = new ArrayList<>();
        for (String groupId : req.groups()) {
            if (groupId == null) {
                described.add(CompletableFuture.completedFuture(describeError(null, Errors.INVALID_GROUP_ID)));
                continue;
            }
            described.add(runtime.read("describe-groups", partitionFor(groupId), s -> s.describe(groupId, version))
                    .exceptionally(e -> describeError(groupId, errorFor(e))));
        }
        return allInOrder(described).thenApply(list -> new DescribeGroupsResponseData().setGroups(list));
    }

    private static DescribedGroup describeError(String groupId, Errors error) {
        return new DescribedGroup().setGroupId(groupId).setErrorCode(error.code()).setGroupState("")
                .setProtocolType("").setProtocolData("");
    }

    /** DeleteGroups: an empty group and its offsets go; completes once the tombstones are durable. */
    public CompletableFuture<DeleteGroupsResponseData> deleteGroups(DeleteGroupsRequestData req, short version) {
        List<CompletableFuture<DeletableGroupResult>> results = new ArrayList<>();
        for (String groupId : req.groupsNames()) {
            CompletableFuture<Errors> error = invalidGroupId(groupId)
                    ? CompletableFuture.completedFuture(Errors.INVALID_GROUP_ID)
                    : write("delete-group", groupId, (s, response) -> s.deleteGroup(groupId, response), e -> e);
            results.add(error.thenApply(e -> new DeletableGroupResult().setGroupId(groupId).setErrorCode(e.code())));
        }
        return allInOrder(results).thenApply(list -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            list.forEach(response.results()::add);
            return response;
        });
    }

    // ---- plumbing ------------------------------------------------------------------------

    /** An operation on a group's shard that completes {@code response} itself. */
    @FunctionalInterface
    private interface GroupWrite<T> {
        CoordinatorResult<Void, GroupRecord> run(GroupCoordinatorShard shard, CompletableFuture<T> response);
    }

    /**
     * Runs {@code operation} on the group's shard. The shard completes the response (at once, or when
     * a rebalance or an append finishes); if the operation never ran (the partition is not served
     * here, or is loading) or failed before answering, the response is {@code onError}'s.
     */
    private <T> CompletableFuture<T> write(String name, String groupId, GroupWrite<T> operation,
            Function<Errors, T> onError) {
        CompletableFuture<T> response = new CompletableFuture<>();
        runtime.write(name, partitionFor(groupId), s -> operation.run(s, response)).whenComplete((v, e) -> {
            if (e != null && !response.isDone()) {
                response.complete(onError.apply(errorFor(e)));
            }
        });
        return response;
    }

    /**
     * The code for a failed operation: the runtime's NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS,
     * what a failed write of the group log calls for, or UNKNOWN_SERVER_ERROR for a bug.
     */
    static Errors errorFor(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        Errors error = Errors.forException(t);
        if (error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
            return error;
        }
        return t instanceof ApiException ? Responses.forLogFailure(t) : Errors.UNKNOWN_SERVER_ERROR;
    }

    static <T> CompletableFuture<List<T>> allInOrder(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    static boolean invalidGroupId(String groupId) {
        return groupId == null || groupId.isEmpty();
    }

    /**
     * Unloads every partition (waiting members are told NOT_COORDINATOR) and stops the timers of
     * its groups. Threads given by the caller are the caller's to close.
     */
    @Override
    public void close() {
        runtime.close();
        if (ownThreads != null) {
            ownThreads.close();
        }
    }
}
