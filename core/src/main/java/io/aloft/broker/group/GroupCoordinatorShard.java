package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorShard;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.ShardContext;
import io.aloft.broker.coordinator.TransactionMarker;
import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.ConsumerGroup;
import io.aloft.broker.group.consumer.ConsumerGroupConfig;
import io.aloft.broker.group.consumer.ConsumerGroupDescriber;
import io.aloft.broker.group.consumer.ConsumerGroupRecord;
import io.aloft.broker.group.consumer.ConsumerGroups;
import io.aloft.broker.group.share.ShareGroup;
import io.aloft.broker.group.share.ShareGroupDescriber;
import io.aloft.broker.group.share.ShareGroupRecord;
import io.aloft.broker.group.share.ShareGroups;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.log.VerificationGuard;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The groups of one {@code __consumer_offsets} partition and the operations on them: a
 * {@link CoordinatorShard} of the group coordinator's runtime, so it runs on one thread and holds
 * plain maps. {@link GroupCoordinator} routes each request here by the group's partition. Classic
 * groups, consumer groups (KIP-848, {@link ConsumerGroups}), share groups (KIP-932,
 * {@link ShareGroups}, glued in by {@link ShareGroupOperations}) and the offsets of every group id
 * ({@link GroupOffsets}) live side by side; one id is one type of group.
 *
 * <p>Classic groups change their state in the operation itself (a group holds waiting requests and
 * timers that no record describes) and write records to persist it, as Kafka's classic groups do:
 * results are built with {@link CoordinatorResult#builder()}, their records are not replayed when
 * written, and responses that wait for durability are completed by the steps that follow the
 * append. {@link #replay} is used when the partition loads. Consumer groups are the other way round:
 * their operations only compute records, which {@link #replay} applies when written and when loaded
 * ({@link ConsumerGroupOperations}).
 *
 * <p>Confined to the shard's thread (and the loading thread before {@link #onLoaded}).
 */
final class GroupCoordinatorShard implements CoordinatorShard<GroupRecord> {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinatorShard.class);

    private final GroupCoordinatorConfig config;
    private final ShardContext<GroupRecord> ctx;
    private final MembershipManager membership;
    private final SyncAndLeave syncAndLeave;
    private final OffsetManager offsets;
    private final TxnOffsetManager txnOffsets;
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    private final Map<String, GroupOffsets> groupOffsets = new HashMap<>();
    private final ConsumerGroups consumerGroups;
    private final ConsumerGroupOperations consumerOps;
    private final ShareGroups shareGroups;
    private final ShareGroupOperations shareOps;
    private final ShareGroupSetup shares;
    private final GroupReplay replay;

    GroupCoordinatorShard(GroupCoordinatorConfig config, ShardContext<GroupRecord> ctx, TopicIdResolver topicIds,
                          ClusterTopics cluster) {
        this(config, ctx, topicIds, cluster, ShareGroupSetup.DISABLED);
    }

    GroupCoordinatorShard(GroupCoordinatorConfig config, ShardContext<GroupRecord> ctx, TopicIdResolver topicIds,
                          ClusterTopics cluster, ShareGroupSetup shares) {
        this.config = config;
        this.ctx = ctx;
        this.membership = new MembershipManager(config, ctx);
        this.syncAndLeave = new SyncAndLeave(membership, ctx);
        this.offsets = new OffsetManager(config, ctx, membership, topicIds);
        this.txnOffsets = new TxnOffsetManager(config, ctx, groupOffsets);
        this.consumerGroups = new ConsumerGroups(config.consumerGroupConfig(),
                context(ctx, ConsumerGroupOperations::wrap), cluster);
        this.consumerOps = new ConsumerGroupOperations(consumerGroups, groups, groupOffsets, offsets, membership);
        this.shares = shares;
        this.shareGroups = new ShareGroups(shares.config(), shares.settings(),
                context(ctx, ShareGroupOperations::wrap), cluster, shares.listener());
        this.shareOps = new ShareGroupOperations(shareGroups, groups, consumerGroups);
        this.replay = new GroupReplay(groups, groupOffsets, consumerGroups, shareGroups, txnOffsets, ctx.partition());
    }

    /** The shard's context as consumer or share groups use it: their timers' records become group records. */
    private static <X> ShardContext<X> context(ShardContext<GroupRecord> ctx, Function<List<X>, List<GroupRecord>> wrap) {
        return new ShardContext<>() {
            @Override
            public int partition() {
                return ctx.partition();
            }

            @Override
            public long nowMs() {
                return ctx.nowMs();
            }

            @Override
            public CoordinatorTimer.Scheduled schedule(long delayMs, String name,
                    Supplier<CoordinatorResult<Void, X>> operation) {
                return ctx.schedule(delayMs, name, () -> {
                    CoordinatorResult<Void, X> r = operation.get();
                    return CoordinatorResult.of(wrap.apply(r.records()), null);
                });
            }
        };
    }

    // ---- loading -------------------------------------------------------------------------

    @Override
    public void replay(GroupRecord record) {
        replay.apply(record, ctx.nowMs());
    }

    /** Restored members get a fresh session timeout to heartbeat in; retention starts. */
    @Override
    public void onLoaded() {
        for (ClassicGroup g : groups.values()) {
            membership.restore(g);
        }
        consumerGroups.onLoaded();
        shareGroups.onLoaded();
        scheduleRetention();
        LOG.debug("__consumer_offsets-{}: loaded {} classic and {} consumer groups", ctx.partition(), groups.size(),
                consumerGroups.all().size());
    }

    /** Waiting members are told NOT_COORDINATOR, so they find the partition's new leader. */
    @Override
    public void onUnloaded() {
        for (ClassicGroup g : groups.values()) {
            membership.shutDown(g, Errors.NOT_COORDINATOR);
        }
        groups.clear();
        consumerGroups.onUnloaded();
        shareGroups.onUnloaded();
    }

    private ClassicGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, ctx.partition(), ctx.nowMs(),
                replay.offsetsOf(id)));
    }

    // ---- consumer groups (KIP-848) -------------------------------------------------------

    CoordinatorResult<ConsumerGroupHeartbeatResponseData, GroupRecord> consumerGroupHeartbeat(
            ConsumerGroupHeartbeatRequestData req, short version, String clientId, String clientHost) {
        if (shareOps.exists(req.groupId()) && consumerGroups.validate(req, version) == null) {
            return CoordinatorResult.of(new ConsumerGroupHeartbeatResponseData()
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + req.groupId() + " is not a consumer group."));
        }
        return consumerOps.heartbeat(req, version, clientId, clientHost);
    }

    ConsumerGroupDescribeResponseData.DescribedGroup consumerGroupDescribe(String groupId) {
        ConsumerGroupDescribeResponseData.DescribedGroup out = consumerOps.describe(groupId);
        return shareOps.exists(groupId) ? out.setErrorMessage("Group " + groupId + " is not a consumer group.") : out;
    }

    // ---- share groups (KIP-932) ----------------------------------------------------------

    CoordinatorResult<ShareGroups.HeartbeatResult, GroupRecord> shareGroupHeartbeat(
            org.apache.kafka.common.message.ShareGroupHeartbeatRequestData req, String clientId, String clientHost) {
        return shareOps.heartbeat(req, clientId, clientHost);
    }

    ShareGroupOperations shareOps() {
        return shareOps;
    }

    private static CoordinatorResult.Builder<GroupRecord> writes() {
        return CoordinatorResult.builder();
    }

    // ---- membership ----------------------------------------------------------------------

    CoordinatorResult<Void, GroupRecord> join(String groupId, MembershipManager.JoinRequest req,
            CompletableFuture<JoinGroupResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        Errors mixed = shareOps.exists(groupId) ? Errors.INCONSISTENT_GROUP_PROTOCOL
                : consumerOps.convertForClassicJoin(groupId, out);
        if (mixed != Errors.NONE) {
            response.complete(Responses.joinError(mixed, req.memberId(), req.version()));
            return out.build(null);
        }
        ClassicGroup g = req.memberId().isEmpty() ? getOrCreate(groupId) : groups.get(groupId);
        if (g == null) {
            response.complete(Responses.joinError(Errors.UNKNOWN_MEMBER_ID, req.memberId(), req.version()));
            return out.build(null);
        }
        membership.join(g, req, response, out);
        maybeDiscard(g, out); // a refused first join must not leave an empty group behind
        return out.build(null);
    }

    CoordinatorResult<Void, GroupRecord> sync(SyncGroupRequestData req, short version,
            CompletableFuture<SyncGroupResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ClassicGroup g = groups.get(req.groupId());
        if (g == null) {
            response.complete(Responses.syncError(Errors.UNKNOWN_MEMBER_ID));
        } else {
            syncAndLeave.sync(g, req, version, response, out);
        }
        return out.build(null);
    }

    CoordinatorResult<HeartbeatResponseData, GroupRecord> heartbeat(HeartbeatRequestData req) {
        ClassicGroup g = groups.get(req.groupId());
        return CoordinatorResult.of(g == null
                ? new HeartbeatResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())
                : syncAndLeave.heartbeat(g, req));
    }

    CoordinatorResult<Void, GroupRecord> leave(LeaveGroupRequestData req, short version,
            CompletableFuture<LeaveGroupResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ConsumerGroup cg = consumerGroups.group(req.groupId());
        if (cg != null) {
            consumerOps.leave(cg, req, version, response, out);
            return out.build(null);
        }
        ClassicGroup g = groups.get(req.groupId());
        if (g == null) {
            List<MemberResponse> unknown = new ArrayList<>();
            for (LeaveGroupRequestData.MemberIdentity id : SyncAndLeave.identities(req, version)) {
                unknown.add(new MemberResponse().setMemberId(id.memberId()).setGroupInstanceId(id.groupInstanceId())
                        .setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));
            }
            response.complete(SyncAndLeave.leaveResponse(unknown, version));
        } else {
            response.complete(syncAndLeave.leave(g, req, version, out));
        }
        return out.build(null);
    }

    // ---- offsets -------------------------------------------------------------------------

    CoordinatorResult<Void, GroupRecord> commitOffsets(OffsetCommitRequestData req, short version,
            CompletableFuture<OffsetCommitResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ConsumerGroup cg = consumerGroups.group(req.groupId());
        if (cg != null) {
            consumerOps.commit(cg, req, version, response, out);
            return out.build(null);
        }
        ClassicGroup g = groups.get(req.groupId());
        if (g == null && shareOps.exists(req.groupId())) {
            response.complete(OffsetManager.commitError(req, version, Errors.GROUP_ID_NOT_FOUND));
            return out.build(null);
        }
        if (g == null) {
            if (req.generationIdOrMemberEpoch() >= 0) {
                // A member of a group that does not exist; v9 started saying so plainly.
                Errors e = version >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
                response.complete(OffsetManager.commitError(req, version, e));
                return out.build(null);
            }
            g = getOrCreate(req.groupId()); // a simple (unmanaged) group springs into being
        }
        offsets.commit(g, req, version, response, out);
        return out.build(null);
    }

    /**
     * Committed offsets of {@code groupId} (an unknown group has none); with {@code requireStable},
     * UNSTABLE_OFFSET_COMMIT for partitions with offsets pending in a transaction.
     */
    List<OffsetManager.TopicResult> fetchOffsets(String groupId, List<OffsetManager.TopicQuery> topics, boolean byId,
                                                 boolean requireStable) {
        return offsets.fetch(groupOffsets.get(groupId), topics, byId, requireStable);
    }

    /**
     * OffsetFetch v9+, which names the member asking: a member of a consumer group must have its
     * current epoch (KIP-848); classic groups answer as before.
     */
    OffsetManager.FetchResult fetchOffsets(String groupId, String memberId, int memberEpoch,
                                           List<OffsetManager.TopicQuery> topics, boolean byId,
                                           boolean requireStable) {
        ConsumerGroup cg = consumerGroups.group(groupId);
        Errors error = cg == null ? Errors.NONE : consumerOps.validateFetch(cg, memberId, memberEpoch);
        return new OffsetManager.FetchResult(error,
                error == Errors.NONE ? fetchOffsets(groupId, topics, byId, requireStable) : List.of());
    }

    /**
     * TxnOffsetCommit: the member checks of the group's protocol (KIP-447), then the offsets are
     * written in the producer's transaction; {@code response} once durable.
     */
    CoordinatorResult<Void, GroupRecord> txnCommitOffsets(TxnOffsetCommitRequestData req, VerificationGuard guard,
            CompletableFuture<TxnOffsetCommitResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ConsumerGroup cg = consumerGroups.group(req.groupId());
        Errors error;
        GroupOffsets o;
        if (cg != null) {
            error = TxnOffsetManager.validateConsumer(consumerGroups, cg, req);
            o = replay.offsetsOf(req.groupId());
        } else {
            ClassicGroup g = groups.get(req.groupId());
            if (g == null && (req.generationId() >= 0 || shareOps.exists(req.groupId()))) {
                error = Errors.ILLEGAL_GENERATION; // a member of a group that does not exist
            } else {
                g = g != null ? g : getOrCreate(req.groupId()); // a simple group, as for OffsetCommit
                error = TxnOffsetManager.validateClassic(g, req);
            }
            o = g == null ? null : g.offsets;
        }
        if (error != Errors.NONE) {
            response.complete(TxnOffsetManager.errorResponse(req, error));
        } else {
            txnOffsets.write(req.groupId(), o, req, guard, response, out);
        }
        return out.build(null);
    }

    /**
     * Writes a transaction marker into this partition; once durable, the producer's pending
     * offsets in every group here are committed or dropped. Fails as the partition refuses the
     * marker (a stale producer epoch, a fenced coordinator epoch).
     */
    CoordinatorResult<Void, GroupRecord> completeTransaction(TransactionMarker marker) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        out.append(List.of(new GroupRecord.TxnMarker(marker)), (failure, next) -> {
            if (failure == null) {
                txnOffsets.complete(marker);
            } else {
                LOG.debug("__consumer_offsets-{}: marker of producer {} not written", ctx.partition(),
                        marker.producerId(), failure);
            }
        });
        return out.build(null);
    }

    CoordinatorResult<Void, GroupRecord> deleteOffsets(OffsetDeleteRequestData req,
            CompletableFuture<OffsetDeleteResponseData> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ConsumerGroup cg = consumerGroups.group(req.groupId());
        if (cg != null) {
            consumerOps.deleteOffsets(cg, req, response, out);
            return out.build(null);
        }
        ClassicGroup g = groups.get(req.groupId());
        if (g == null) {
            response.complete(new OffsetDeleteResponseData().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()));
        } else {
            offsets.deleteOffsets(g, req, response, out);
        }
        return out.build(null);
    }

    // ---- groups --------------------------------------------------------------------------

    /** Committed offsets of this partition's groups, at most {@code limit} of them, in no order (lag meters). */
    List<CommittedOffset> committedOffsets(int limit) {
        List<CommittedOffset> out = new ArrayList<>();
        for (Map.Entry<String, GroupOffsets> g : groupOffsets.entrySet()) {
            for (GroupRecord.OffsetCommit c : g.getValue().committed.values()) {
                if (out.size() >= limit) {
                    return out;
                }
                out.add(new CommittedOffset(g.getKey(), c.topic(), c.partition(), c.offset()));
            }
        }
        return out;
    }

    /** The groups of this partition that are not dead, unfiltered and unsorted. */
    List<ListedGroup> listGroups() {
        List<ListedGroup> out = new ArrayList<>();
        for (ClassicGroup g : groups.values()) {
            if (!g.is(GroupState.DEAD)) {
                out.add(new ListedGroup().setGroupId(g.groupId)
                        .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                        .setGroupState(g.state.protocolName())
                        .setGroupType(GroupCoordinator.CLASSIC_GROUP_TYPE));
            }
        }
        for (ConsumerGroup g : consumerGroups.all()) {
            out.add(ConsumerGroupDescriber.listed(g));
        }
        for (ShareGroup g : shareGroups.all()) {
            out.add(ShareGroupDescriber.listed(g));
        }
        return out;
    }

    /**
     * DescribeGroups of one group. Member metadata and assignments are shown only for a Stable
     * group, as in Kafka. An unknown group is reported Dead (v0-5) or GROUP_ID_NOT_FOUND (v6+, KIP-1043).
     */
    DescribedGroup describe(String groupId, short version) {
        // A consumer group is not one DescribeGroups describes: Kafka answers as for an unknown group.
        DescribedGroup out = new DescribedGroup().setGroupId(groupId);
        ClassicGroup g = groups.get(groupId);
        if (g != null && !g.is(GroupState.DEAD)) {
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
        out.setGroupState(GroupState.DEAD.protocolName()).setProtocolType("").setProtocolData("");
        if (version >= 6) {
            out.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(consumerGroups.group(groupId) != null
                    || shareOps.exists(groupId)
                    ? "Group " + groupId + " is not a classic group." : "Group " + groupId + " not found.");
        }
        return out;
    }

    /** DeleteGroups of one group: an empty group and its offsets go; {@code response} once durable. */
    CoordinatorResult<Void, GroupRecord> deleteGroup(String groupId, CompletableFuture<Errors> response) {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        ConsumerGroup cg = consumerGroups.group(groupId);
        if (cg != null) {
            consumerOps.delete(cg, response, out);
            return out.build(null);
        }
        ShareGroup sg = shareGroups.group(groupId);
        if (sg != null) {
            shareOps.delete(sg, response, out, parts -> deleteShareState(groupId, parts));
            return out.build(null);
        }
        ClassicGroup g = groups.get(groupId);
        if (g == null || g.is(GroupState.DEAD)) {
            response.complete(Errors.GROUP_ID_NOT_FOUND);
            return out.build(null);
        }
        if (!g.is(GroupState.EMPTY) || !g.members.isEmpty()) {
            response.complete(Errors.NON_EMPTY_GROUP);
            return out.build(null);
        }
        List<GroupRecord> records = new ArrayList<>(OffsetManager.allOffsetTombstones(g.groupId, g.offsets));
        records.add(new GroupRecord.GroupTombstone(g.groupId));
        membership.shutDown(g, Errors.COORDINATOR_NOT_AVAILABLE);
        groups.remove(g.groupId, g);
        g.offsets.removed = true;
        groupOffsets.remove(g.groupId, g.offsets);
        LOG.debug("group {}: deleted", g.groupId);
        out.append(records, (failure, next) -> {
            if (failure != null) {
                LOG.warn("group {}: deletion could not be persisted", groupId, failure);
            }
            response.complete(failure == null ? Errors.NONE : Responses.forLogFailure(failure));
        });
        return out.build(null);
    }

    /** Forgets the state of a deleted share group's partitions (failures are logged: nothing reads it again). */
    private void deleteShareState(String groupId, Map<org.apache.kafka.common.Uuid, java.util.Set<Integer>> parts) {
        if (shares.persister() == null) {
            return;
        }
        parts.forEach((topic, ps) -> ps.forEach(p -> shares.persister().delete(new SharePartitionKey(groupId, topic, p))
                .whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.warn("share group {}: state of {}-{} not deleted", groupId, topic, p, e);
                    }
                })));
    }

    /** Drops a group with no members, offsets or pending writes; tombstones it if it was ever persisted. */
    private void maybeDiscard(ClassicGroup g, CoordinatorResult.Builder<GroupRecord> out) {
        if (g.is(GroupState.DEAD) || !OffsetManager.isDisposable(g)) {
            return;
        }
        boolean persisted = g.generationId > 0;
        membership.shutDown(g, Errors.COORDINATOR_NOT_AVAILABLE);
        groups.remove(g.groupId, g);
        groupOffsets.remove(g.groupId, g.offsets);
        if (persisted) {
            out.append(List.of(new GroupRecord.GroupTombstone(g.groupId)), (failure, next) -> {
                if (failure != null) {
                    LOG.warn("group {}: removal could not be persisted", g.groupId, failure);
                }
            });
        }
    }

    // ---- retention -----------------------------------------------------------------------

    private void scheduleRetention() {
        ctx.schedule(config.offsetsRetentionCheckIntervalMs(), "offsets-retention", this::expireOffsets);
    }

    /** Deletes expired offsets and then groups left with nothing (every offsets.retention.check.interval.ms). */
    private CoordinatorResult<Void, GroupRecord> expireOffsets() {
        CoordinatorResult.Builder<GroupRecord> out = writes();
        for (ClassicGroup g : List.copyOf(groups.values())) {
            offsets.expireOffsets(g, out, (disposable, then) -> {
                if (disposable) {
                    maybeDiscard(g, then);
                }
            });
        }
        consumerOps.expireOffsets(out);
        scheduleRetention();
        return out.build(null);
    }
}
