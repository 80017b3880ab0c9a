package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.group.consumer.ConsumerGroup;
import io.aloft.broker.group.consumer.ConsumerGroupDescriber;
import io.aloft.broker.group.consumer.ConsumerGroupMember;
import io.aloft.broker.group.consumer.ConsumerGroupRecord;
import io.aloft.broker.group.consumer.ConsumerGroups;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard's side of consumer groups (KIP-848): where they meet what the shard also holds, the
 * classic groups of the same id space and the offsets of every id. A consumer heartbeat on the id
 * of an empty classic group converts it (the offsets stay); on a classic group with members it is
 * refused, as Kafka does with {@code group.consumer.migration.policy=disabled}, and so is a classic
 * JoinGroup on a consumer group with members ({@link #convertForClassicJoin}).
 *
 * <p>Consumer-group records are replayed when written ({@link CoordinatorResult#of(List, Object)});
 * where a result must be built the classic way (offsets, deletion), the consumer records in it are
 * applied at once by hand, the same replay. Confined to the shard's thread.
 */
final class ConsumerGroupOperations {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupOperations.class);

    private final ConsumerGroups consumerGroups;
    private final Map<String, ClassicGroup> classicGroups;
    private final Map<String, GroupOffsets> offsets;
    private final OffsetManager offsetManager;
    private final MembershipManager membership;

    ConsumerGroupOperations(ConsumerGroups consumerGroups, Map<String, ClassicGroup> classicGroups,
                            Map<String, GroupOffsets> offsets, OffsetManager offsetManager,
                            MembershipManager membership) {
        this.consumerGroups = consumerGroups;
        this.classicGroups = classicGroups;
        this.offsets = offsets;
        this.offsetManager = offsetManager;
        this.membership = membership;
    }

    static GroupRecord wrap(ConsumerGroupRecord r) {
        return new GroupRecord.ConsumerGroupChange(r);
    }

    static List<GroupRecord> wrap(List<ConsumerGroupRecord> records) {
        return records.stream().map(ConsumerGroupOperations::wrap).toList();
    }

    /** Whether a classic group holds nothing a consumer group would have to take over but offsets. */
    private static boolean convertible(ClassicGroup g) {
        return g.is(GroupState.EMPTY) && g.members.isEmpty() && g.pendingMembers.isEmpty();
    }

    // ---- heartbeat -----------------------------------------------------------------------

    CoordinatorResult<ConsumerGroupHeartbeatResponseData, GroupRecord> heartbeat(ConsumerGroupHeartbeatRequestData req,
            short version, String clientId, String clientHost) {
        ConsumerGroupHeartbeatResponseData invalid = consumerGroups.validate(req, version);
        if (invalid != null) {
            return CoordinatorResult.of(invalid);
        }
        ClassicGroup classic = classicGroups.get(req.groupId());
        List<GroupRecord> records = new ArrayList<>();
        if (classic != null) {
            if (!convertible(classic) || req.memberEpoch() != 0) {
                return CoordinatorResult.of(new ConsumerGroupHeartbeatResponseData()
                        .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + req.groupId() + " is not a consumer group."));
            }
            // Replayed before the consumer records: drops the classic group, keeps the offsets.
            records.add(new GroupRecord.GroupTombstone(req.groupId()));
        }
        CoordinatorResult<ConsumerGroupHeartbeatResponseData, ConsumerGroupRecord> result =
                consumerGroups.heartbeat(req, version, clientId, clientHost);
        if (result.records().isEmpty()) {
            return CoordinatorResult.of(result.response()); // refused: nothing converts either
        }
        if (classic != null) {
            membership.shutDown(classic, Errors.NOT_COORDINATOR);
            LOG.info("group {}: empty classic group converted to a consumer group", req.groupId());
        }
        records.addAll(wrap(result.records()));
        return CoordinatorResult.of(records, result.response());
    }

    /**
     * A classic JoinGroup on the id of a consumer group: an error if it has members (the caller
     * answers it), or the records that delete the empty consumer group, already applied, so the
     * classic group can take the id (its offsets stay). NONE and no records if there is no consumer
     * group.
     */
    Errors convertForClassicJoin(String groupId, CoordinatorResult.Builder<GroupRecord> out) {
        ConsumerGroup g = consumerGroups.group(groupId);
        if (g == null) {
            return Errors.NONE;
        }
        if (!g.isEmpty()) {
            return Errors.INCONSISTENT_GROUP_PROTOCOL; // Kafka's answer with group.consumer.migration.policy=disabled
        }
        List<ConsumerGroupRecord> deletion = consumerGroups.deletion(g);
        deletion.forEach(consumerGroups::replay);
        out.append(wrap(deletion), (failure, next) -> {
            if (failure != null) {
                LOG.warn("group {}: conversion to a classic group could not be persisted", groupId, failure);
            }
        });
        LOG.info("group {}: empty consumer group converted to a classic group", groupId);
        return Errors.NONE;
    }

    /**
     * LeaveGroup on a consumer group: what the admin client sends to remove members (by instance id,
     * or by member id). Each member named is removed as if it had left; {@code response} once the
     * records are durable.
     */
    void leave(ConsumerGroup g, LeaveGroupRequestData req, short version,
               CompletableFuture<LeaveGroupResponseData> response, CoordinatorResult.Builder<GroupRecord> out) {
        List<LeaveGroupResponseData.MemberResponse> results = new ArrayList<>();
        List<GroupRecord> records = new ArrayList<>();
        for (LeaveGroupRequestData.MemberIdentity id : SyncAndLeave.identities(req, version)) {
            String memberId = id.memberId() == null || id.memberId().isEmpty() ? null : id.memberId();
            Errors error;
            ConsumerGroupMember holder = g.staticMember(id.groupInstanceId());
            if (id.groupInstanceId() != null && holder == null) {
                error = Errors.UNKNOWN_MEMBER_ID;
            } else if (holder != null && memberId != null && !holder.memberId().equals(memberId)) {
                error = Errors.FENCED_INSTANCE_ID;
            } else {
                ConsumerGroupMember m = holder != null ? holder : memberId == null ? null : g.member(memberId);
                error = m == null ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE;
                if (m != null) {
                    records.addAll(wrap(consumerGroups.removeNow(g, m.memberId())));
                }
            }
            results.add(new LeaveGroupResponseData.MemberResponse().setMemberId(id.memberId())
                    .setGroupInstanceId(id.groupInstanceId()).setErrorCode(error.code()));
        }
        LeaveGroupResponseData answer = SyncAndLeave.leaveResponse(results, version);
        if (records.isEmpty()) {
            response.complete(answer);
            return;
        }
        out.append(records, (failure, next) -> response.complete(failure == null ? answer
                : new LeaveGroupResponseData().setErrorCode(Responses.forLogFailure(failure).code())));
    }

    // ---- offsets -------------------------------------------------------------------------

    /** OffsetCommit for a consumer group: KIP-848's member and epoch checks, then the shared write. */
    void commit(ConsumerGroup g, OffsetCommitRequestData req, short version,
                CompletableFuture<OffsetCommitResponseData> response, CoordinatorResult.Builder<GroupRecord> out) {
        Errors error = consumerGroups.validateOffsetAccess(g, req.memberId(), req.generationIdOrMemberEpoch(), true);
        boolean fromMember = !(req.generationIdOrMemberEpoch() < 0
                && (req.memberId() == null || req.memberId().isEmpty()));
        if (error == Errors.NONE && fromMember && version < 9) {
            // Members of the consumer protocol commit with v9+, which carries the member epoch.
            error = Errors.UNSUPPORTED_VERSION;
        }
        if (error != Errors.NONE) {
            response.complete(OffsetManager.commitError(req, version, error));
            return;
        }
        offsetManager.write(g.groupId(), offsetsOf(g.groupId()), req, version, response, out);
    }

    /** OffsetFetch v9+ from a member of a consumer group; admin fetches (no member, epoch -1) pass. */
    Errors validateFetch(ConsumerGroup g, String memberId, int memberEpoch) {
        if (memberId == null && memberEpoch < 0) {
            return Errors.NONE;
        }
        return consumerGroups.validateOffsetAccess(g, memberId, memberEpoch, false);
    }

    /** OffsetDelete: offsets of topics the group subscribes to stay while it has members. */
    void deleteOffsets(ConsumerGroup g, OffsetDeleteRequestData req, CompletableFuture<OffsetDeleteResponseData> response,
                       CoordinatorResult.Builder<GroupRecord> out) {
        offsetManager.deleteOffsets(g.groupId(), offsetsOf(g.groupId()),
                Optional.of(g.isEmpty() ? java.util.Set.of() : consumerGroups.subscribedTopicNames(g)), req, response,
                out);
    }

    private GroupOffsets offsetsOf(String groupId) {
        return offsets.computeIfAbsent(groupId, id -> new GroupOffsets());
    }

    // ---- groups --------------------------------------------------------------------------

    ConsumerGroupDescribeResponseData.DescribedGroup describe(String groupId) {
        ConsumerGroup g = consumerGroups.group(groupId);
        if (g == null) {
            return new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(groupId)
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage(classicGroups.containsKey(groupId)
                            ? "Group " + groupId + " is not a consumer group." : "Group " + groupId + " not found.");
        }
        return ConsumerGroupDescriber.describe(g, consumerGroups.assignorName(g), consumerGroups.cluster());
    }

    /** DeleteGroups of a consumer group: only an empty one; its offsets are tombstoned first. */
    void delete(ConsumerGroup g, CompletableFuture<Errors> response, CoordinatorResult.Builder<GroupRecord> out) {
        if (!g.isEmpty()) {
            response.complete(Errors.NON_EMPTY_GROUP);
            return;
        }
        out.append(deletionRecords(g), (failure, next) -> {
            if (failure != null) {
                LOG.warn("group {}: deletion could not be persisted", g.groupId(), failure);
            }
            response.complete(failure == null ? Errors.NONE : Responses.forLogFailure(failure));
        });
        LOG.debug("group {}: deleted", g.groupId());
    }

    /** Tombstones of the group's offsets and then of the group, whose state goes at once. */
    private List<GroupRecord> deletionRecords(ConsumerGroup g) {
        GroupOffsets o = offsets.remove(g.groupId());
        List<GroupRecord> records = new ArrayList<>();
        if (o != null) {
            records.addAll(OffsetManager.allOffsetTombstones(g.groupId(), o));
            o.removed = true;
        }
        List<ConsumerGroupRecord> deletion = consumerGroups.deletion(g);
        deletion.forEach(consumerGroups::replay);
        records.addAll(wrap(deletion));
        return records;
    }

    /** Retention: expired offsets go; a group left empty without offsets goes after them. */
    void expireOffsets(CoordinatorResult.Builder<GroupRecord> out) {
        for (ConsumerGroup g : List.copyOf(consumerGroups.all())) {
            GroupOffsets o = offsetsOf(g.groupId());
            offsetManager.expireConsumerOffsets(g.groupId(), o, g.isEmpty(), consumerGroups.subscribedTopicNames(g),
                    out, then -> {
                        ConsumerGroup now = consumerGroups.group(g.groupId());
                        if (now != null && now.isEmpty() && o.isEmpty() && !o.removed) {
                            then.append(deletionRecords(now), (failure, next) -> {
                                if (failure != null) {
                                    LOG.warn("group {}: removal could not be persisted", g.groupId(), failure);
                                }
                            });
                        }
                    });
        }
    }
}
