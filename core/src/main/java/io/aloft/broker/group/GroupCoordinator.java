package io.aloft.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic (pre-KIP-848) consumer group coordinator, for the request handlers of JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups,
 * DeleteGroups and OffsetDelete. Each method takes the request's generated message and API
 * version and returns the response message (throttle time left for the handler to set).
 *
 * <p>State is kept the Kafka way: every offset commit and group change is appended to a
 * partition of {@code __consumer_offsets} through a {@link GroupLog} (group to partition by
 * {@link #partitionFor}), and {@link #loadPartition} rebuilds the partition's groups by
 * replaying it. Only groups of loaded partitions are served; others get NOT_COORDINATOR (or
 * COORDINATOR_LOAD_IN_PROGRESS while loading).
 *
 * <p>Thread-safe: requests from any number of connections may call in at once. Each group has
 * its own lock (see {@link ClassicGroup}); returned futures are completed outside any lock,
 * on the calling thread, a timer thread or the thread completing a log append.
 */
public final class GroupCoordinator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    /** The group type ListGroups v5+ reports for every group here. */
    static final String CLASSIC_GROUP_TYPE = "classic";

    private final GroupCoordinatorConfig config;
    private final GroupLog log;
    private final GroupTimer timer;
    private final MembershipManager membership;
    private final SyncAndLeave syncAndLeave;
    private final OffsetManager offsets;
    private final OffsetFetchShapes fetchShapes;

    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    /** Partitions of __consumer_offsets this coordinator owns: false while loading, true once loaded. */
    private final Map<Integer, Boolean> partitions = new ConcurrentHashMap<>();
    private volatile GroupTimer.Scheduled retentionTask;
    private volatile boolean closed;

    /**
     * @param topicIds resolves topic ids for OffsetCommit/OffsetFetch v10+; {@link TopicIdResolver#NONE}
     *                 answers such requests with UNKNOWN_TOPIC_ID
     */
    public GroupCoordinator(GroupCoordinatorConfig config, GroupLog log, GroupTimer timer, TopicIdResolver topicIds) {
        this.config = config;
        this.log = log;
        this.timer = timer;
        this.membership = new MembershipManager(config, timer, log);
        this.syncAndLeave = new SyncAndLeave(membership, timer, log);
        this.offsets = new OffsetManager(config, timer, log, membership, topicIds);
        this.fetchShapes = new OffsetFetchShapes(topicIds);
        scheduleRetention();
    }

    public GroupCoordinator(GroupCoordinatorConfig config, GroupLog log, GroupTimer timer) {
        this(config, log, timer, TopicIdResolver.NONE);
    }

    /** The __consumer_offsets partition of {@code groupId}: Kafka's abs(hashCode) % partitions. */
    public int partitionFor(String groupId) {
        int h = groupId.hashCode();
        int abs = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
        return abs % config.offsetsTopicPartitions();
    }

    // ---- ownership -----------------------------------------------------------------------

    /**
     * Takes ownership of {@code partition}: replays its records (blocking until done), restores
     * its groups (members get a fresh session timeout to heartbeat in), then serves them. Loading
     * an owned partition again does nothing.
     *
     * @throws CorruptGroupRecordException if a record cannot be read; the partition stays unowned
     */
    public void loadPartition(int partition) {
        if (partitions.putIfAbsent(partition, Boolean.FALSE) != null) {
            return;
        }
        Map<String, ClassicGroup> loaded = new HashMap<>();
        try {
            log.replay(partition, r -> GroupReplay.apply(loaded, partition, r, timer.nowMs()));
        } catch (RuntimeException e) {
            partitions.remove(partition);
            throw e;
        }
        for (ClassicGroup g : loaded.values()) {
            groups.put(g.groupId, g);
            g.inLock(() -> membership.restore(g));
        }
        partitions.put(partition, Boolean.TRUE);
        LOG.info("__consumer_offsets-{}: loaded {} groups", partition, loaded.size());
    }

    /** Loads every partition of __consumer_offsets: what a single-node broker does at start. */
    public void loadAll() {
        for (int p = 0; p < config.offsetsTopicPartitions(); p++) {
            loadPartition(p);
        }
    }

    /** Gives up {@code partition}: its groups are dropped and their waiting members told NOT_COORDINATOR. */
    public void unloadPartition(int partition) {
        if (partitions.remove(partition) == null) {
            return;
        }
        for (ClassicGroup g : List.copyOf(groups.values())) {
            if (g.partition == partition) {
                g.inLock(() -> membership.shutDown(g, Errors.NOT_COORDINATOR));
                groups.remove(g.groupId, g);
            }
        }
        LOG.info("__consumer_offsets-{}: unloaded", partition);
    }

    private Errors coordinatorError(String groupId) {
        Boolean loaded = partitions.get(partitionFor(groupId));
        if (loaded == null) {
            return Errors.NOT_COORDINATOR;
        }
        return loaded ? Errors.NONE : Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    private ClassicGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, partitionFor(id), timer.nowMs()));
    }

    private static boolean invalidGroupId(String groupId) {
        return groupId == null || groupId.isEmpty();
    }

    // ---- membership ----------------------------------------------------------------------

    /** JoinGroup; completes when the rebalance does (or at once on error, or MEMBER_ID_REQUIRED). */
    public CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData req, short version,
                                                              String clientId, String clientHost) {
        MembershipManager.JoinRequest jr = MembershipManager.JoinRequest.of(req, version, clientId, clientHost);
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(Responses.joinError(error, jr.memberId(), version));
        }
        ClassicGroup g = jr.memberId().isEmpty() ? getOrCreate(req.groupId()) : groups.get(req.groupId());
        if (g == null) {
            return CompletableFuture.completedFuture(
                    Responses.joinError(Errors.UNKNOWN_MEMBER_ID, jr.memberId(), version));
        }
        CompletableFuture<JoinGroupResponseData> result = membership.join(g, jr);
        maybeDiscard(g); // a refused first join must not leave an empty group behind
        return result;
    }

    /** SyncGroup; a follower's completes when the leader's assignment is durable. */
    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData req, short version) {
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        ClassicGroup g = error == Errors.NONE ? groups.get(req.groupId()) : null;
        if (error == Errors.NONE && g == null) {
            error = Errors.UNKNOWN_MEMBER_ID;
        }
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(Responses.syncError(error));
        }
        return syncAndLeave.sync(g, req, version);
    }

    public CompletableFuture<HeartbeatResponseData> heartbeat(HeartbeatRequestData req, short version) {
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        ClassicGroup g = error == Errors.NONE ? groups.get(req.groupId()) : null;
        if (error == Errors.NONE && g == null) {
            error = Errors.UNKNOWN_MEMBER_ID;
        }
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new HeartbeatResponseData().setErrorCode(error.code()));
        }
        return CompletableFuture.completedFuture(syncAndLeave.heartbeat(g, req));
    }

    public CompletableFuture<LeaveGroupResponseData> leaveGroup(LeaveGroupRequestData req, short version) {
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new LeaveGroupResponseData().setErrorCode(error.code()));
        }
        ClassicGroup g = groups.get(req.groupId());
        if (g == null) {
            List<MemberResponse> unknown = new ArrayList<>();
            for (LeaveGroupRequestData.MemberIdentity id : SyncAndLeave.identities(req, version)) {
                unknown.add(new MemberResponse().setMemberId(id.memberId()).setGroupInstanceId(id.groupInstanceId())
                        .setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));
            }
            return CompletableFuture.completedFuture(SyncAndLeave.leaveResponse(unknown, version));
        }
        return CompletableFuture.completedFuture(syncAndLeave.leave(g, req, version));
    }

    // ---- offsets -------------------------------------------------------------------------

    /** OffsetCommit; completes once the offsets are durable in the group log. */
    public CompletableFuture<OffsetCommitResponseData> commitOffsets(OffsetCommitRequestData req, short version) {
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(OffsetManager.commitError(req, version, error));
        }
        ClassicGroup g = groups.get(req.groupId());
        if (g == null) {
            if (req.generationIdOrMemberEpoch() >= 0) {
                // A member of a group that does not exist; v9 started saying so plainly.
                Errors e = version >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
                return CompletableFuture.completedFuture(OffsetManager.commitError(req, version, e));
            }
            g = getOrCreate(req.groupId()); // a simple (unmanaged) group springs into being
        }
        return offsets.commit(g, req, version);
    }

    /** OffsetFetch, single-group (v1-7) or multi-group (v8+) form. requireStable is not needed: no transactions. */
    public CompletableFuture<OffsetFetchResponseData> fetchOffsets(OffsetFetchRequestData req, short version) {
        if (version < 8) {
            String groupId = req.groupId();
            Errors error = groupId == null ? Errors.INVALID_GROUP_ID : coordinatorError(groupId);
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(fetchShapes.singleGroupError(req, version, error));
            }
            List<OffsetManager.TopicResult> result =
                    offsets.fetch(groups.get(groupId), fetchShapes.queries(req), false);
            return CompletableFuture.completedFuture(fetchShapes.singleGroup(result));
        }
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup rg : req.groups()) {
            Errors error = rg.groupId() == null ? Errors.INVALID_GROUP_ID : coordinatorError(rg.groupId());
            if (error != Errors.NONE) {
                response.groups().add(fetchShapes.groupError(rg.groupId(), error));
                continue;
            }
            boolean byId = version >= 10;
            List<OffsetManager.TopicResult> result =
                    offsets.fetch(groups.get(rg.groupId()), fetchShapes.queries(rg, byId), byId);
            response.groups().add(fetchShapes.group(rg.groupId(), result, byId));
        }
        return CompletableFuture.completedFuture(response);
    }

    /** OffsetDelete; completes once the tombstones are durable. */
    public CompletableFuture<OffsetDeleteResponseData> deleteOffsets(OffsetDeleteRequestData req, short version) {
        Errors error = invalidGroupId(req.groupId()) ? Errors.INVALID_GROUP_ID : coordinatorError(req.groupId());
        ClassicGroup g = error == Errors.NONE ? groups.get(req.groupId()) : null;
        if (error == Errors.NONE && g == null) {
            error = Errors.GROUP_ID_NOT_FOUND;
        }
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new OffsetDeleteResponseData().setErrorCode(error.code()));
        }
        return offsets.deleteOffsets(g, req);
    }

    // ---- groups --------------------------------------------------------------------------

    /** ListGroups over the loaded partitions, filtered by state (v4+, case-insensitive) and type (v5+). */
    public CompletableFuture<ListGroupsResponseData> listGroups(ListGroupsRequestData req, short version) {
        List<String> states = version >= 4 ? lower(req.statesFilter()) : List.of();
        List<String> types = version >= 5 ? lower(req.typesFilter()) : List.of();
        ListGroupsResponseData response = new ListGroupsResponseData();
        if (partitions.containsValue(Boolean.FALSE)) {
            response.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        }
        if (!types.isEmpty() && !types.contains(CLASSIC_GROUP_TYPE)) {
            return CompletableFuture.completedFuture(response);
        }
        for (ClassicGroup g : groups.values()) {
            ListedGroup listed = g.inLock(() -> g.is(GroupState.DEAD) ? null : new ListedGroup()
                    .setGroupId(g.groupId)
                    .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                    .setGroupState(g.state.protocolName())
                    .setGroupType(CLASSIC_GROUP_TYPE));
            if (listed != null && (states.isEmpty() || states.contains(listed.groupState().toLowerCase(Locale.ROOT)))) {
                response.groups().add(listed);
            }
        }
        response.groups().sort((a, b) -> a.groupId().compareTo(b.groupId()));
        return CompletableFuture.completedFuture(response);
    }

    private static List<String> lower(List<String> values) {
        return values == null ? List.of() : values.stream().map(s -> s.toLowerCase(Locale.ROOT)).toList();
    }

    /**
     * DescribeGroups. Member metadata and assignments are shown only for a Stable group, as in
     * Kafka. An unknown group is reported Dead (v0-5) or GROUP_ID_NOT_FOUND (v6+, KIP-1043).
     */
    public CompletableFuture<DescribeGroupsResponseData> describeGroups(DescribeGroupsRequestData req, short version) {
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String groupId : req.groups()) {
            response.groups().add(describe(groupId, version));
        }
        return CompletableFuture.completedFuture(response);
    }

    private DescribedGroup describe(String groupId, short version) {
        DescribedGroup out = new DescribedGroup().setGroupId(groupId);
        Errors error = groupId == null ? Errors.INVALID_GROUP_ID : coordinatorError(groupId);
        if (error != Errors.NONE) {
            return out.setErrorCode(error.code()).setGroupState("").setProtocolType("").setProtocolData("");
        }
        ClassicGroup g = groups.get(groupId);
        DescribedGroup described = g == null ? null : g.inLock(() -> g.is(GroupState.DEAD) ? null : describeLocked(g, out));
        if (described != null) {
            return described;
        }
        out.setGroupState(GroupState.DEAD.protocolName()).setProtocolType("").setProtocolData("");
        if (version >= 6) {
            out.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage("Group " + groupId + " not found.");
        }
        return out;
    }

    private static DescribedGroup describeLocked(ClassicGroup g, DescribedGroup out) {
        boolean stable = g.is(GroupState.STABLE);
        out.setGroupState(g.state.protocolName())
                .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                .setProtocolData(stable ? g.protocolName : "");
        for (GroupMember m : g.members.values()) {
            out.members().add(new DescribedGroupMember().setMemberId(m.memberId)
                    .setGroupInstanceId(m.groupInstanceId).setClientId(m.clientId).setClientHost(m.clientHost)
                    .setMemberMetadata(stable ? m.metadata(g.protocolName) : GroupMember.EMPTY)
                    .setMemberAssignment(stable ? m.assignment : GroupMember.EMPTY));
        }
        return out;
    }

    /** DeleteGroups: an empty group and its offsets go; completes once the tombstones are durable. */
    public CompletableFuture<DeleteGroupsResponseData> deleteGroups(DeleteGroupsRequestData req, short version) {
        List<CompletableFuture<DeletableGroupResult>> results = new ArrayList<>();
        for (String groupId : req.groupsNames()) {
            results.add(deleteGroup(groupId).thenApply(e ->
                    new DeletableGroupResult().setGroupId(groupId).setErrorCode(e.code())));
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            results.forEach(f -> response.results().add(f.join()));
            return response;
        });
    }

    private CompletableFuture<Errors> deleteGroup(String groupId) {
        Errors error = invalidGroupId(groupId) ? Errors.INVALID_GROUP_ID : coordinatorError(groupId);
        ClassicGroup g = error == Errors.NONE ? groups.get(groupId) : null;
        if (error == Errors.NONE && g == null) {
            error = Errors.GROUP_ID_NOT_FOUND;
        }
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(error);
        }
        CompletableFuture<Errors> done = new CompletableFuture<>();
        g.inLock(() -> {
            if (g.is(GroupState.DEAD)) {
                g.complete(done, Errors.GROUP_ID_NOT_FOUND);
                return;
            }
            if (!g.is(GroupState.EMPTY) || !g.members.isEmpty()) {
                g.complete(done, Errors.NON_EMPTY_GROUP);
                return;
            }
            List<GroupRecord> records = new ArrayList<>(OffsetManager.allOffsetTombstones(g));
            records.add(new GroupRecord.GroupTombstone(g.groupId));
            membership.shutDown(g, Errors.COORDINATOR_NOT_AVAILABLE);
            groups.remove(g.groupId, g);
            LOG.debug("group {}: deleted", g.groupId);
            log.append(g.partition, records).whenComplete((v, failure) -> g.inLock(() -> {
                if (failure != null) {
                    LOG.warn("group {}: deletion could not be persisted", groupId, failure);
                }
                g.complete(done, failure == null ? Errors.NONE : Responses.forLogFailure(failure));
            }));
        });
        return done;
    }

    /** Drops a group with no members, offsets or pending writes; tombstones it if it was ever persisted. */
    private void maybeDiscard(ClassicGroup g) {
        g.inLock(() -> {
            if (g.is(GroupState.DEAD) || !OffsetManager.isDisposable(g)) {
                return;
            }
            boolean persisted = g.generationId > 0;
            membership.shutDown(g, Errors.COORDINATOR_NOT_AVAILABLE);
            groups.remove(g.groupId, g);
            if (persisted) {
                log.append(g.partition, List.of(new GroupRecord.GroupTombstone(g.groupId)))
                        .whenComplete((v, failure) -> {
                            if (failure != null) {
                                LOG.warn("group {}: removal could not be persisted", g.groupId, failure);
                            }
                        });
            }
        });
    }

    // ---- retention -----------------------------------------------------------------------

    private void scheduleRetention() {
        if (!closed) {
            retentionTask = timer.schedule(config.offsetsRetentionCheckIntervalMs(), () -> {
                expireOffsets();
                scheduleRetention();
            });
        }
    }

    /** Deletes expired offsets and then groups left with nothing (runs every offsets.retention.check.interval.ms). */
    void expireOffsets() {
        for (ClassicGroup g : List.copyOf(groups.values())) {
            offsets.expireOffsets(g).thenAccept(disposable -> {
                if (disposable) {
                    maybeDiscard(g);
                }
            });
        }
    }

    /** Stops the retention timer. Groups stay as they are; their timers die with the {@link GroupTimer}. */
    @Override
    public void close() {
        closed = true;
        GroupTimer.Scheduled task = retentionTask;
        if (task != null) {
            task.cancel();
        }
    }
}
