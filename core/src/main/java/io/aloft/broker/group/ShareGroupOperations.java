package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.group.consumer.ConsumerGroups;
import io.aloft.broker.group.share.ShareGroup;
import io.aloft.broker.group.share.ShareGroupDescriber;
import io.aloft.broker.group.share.ShareGroupRecord;
import io.aloft.broker.group.share.ShareGroups;
import io.aloft.broker.share.ShareGroupDirectory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard's side of share groups (KIP-932): where they meet the classic and consumer groups of
 * the same id space. One id is one type of group: a share heartbeat on a classic or consumer
 * group's id is refused with GROUP_ID_NOT_FOUND ("is not a share group", as Kafka), and the other
 * protocols refuse a share group's id ({@link #exists}). Share records are replayed when written.
 * Confined to the shard's thread.
 */
final class ShareGroupOperations {

    private static final Logger LOG = LoggerFactory.getLogger(ShareGroupOperations.class);

    private final ShareGroups shareGroups;
    private final Map<String, ClassicGroup> classicGroups;
    private final ConsumerGroups consumerGroups;

    ShareGroupOperations(ShareGroups shareGroups, Map<String, ClassicGroup> classicGroups,
                         ConsumerGroups consumerGroups) {
        this.shareGroups = shareGroups;
        this.classicGroups = classicGroups;
        this.consumerGroups = consumerGroups;
    }

    static GroupRecord wrap(ShareGroupRecord r) {
        return new GroupRecord.ShareGroupChange(r);
    }

    static List<GroupRecord> wrap(List<ShareGroupRecord> records) {
        return records.stream().map(ShareGroupOperations::wrap).toList();
    }

    /** Whether {@code groupId} is a share group's. */
    boolean exists(String groupId) {
        return shareGroups.group(groupId) != null;
    }

    /** Whether the id is taken by a group of another type (classic, also a simple one, or consumer). */
    private boolean otherType(String groupId) {
        ClassicGroup c = classicGroups.get(groupId);
        return (c != null && !c.is(GroupState.DEAD)) || consumerGroups.group(groupId) != null;
    }

    CoordinatorResult<ShareGroups.HeartbeatResult, GroupRecord> heartbeat(ShareGroupHeartbeatRequestData req,
            String clientId, String clientHost) {
        var invalid = ShareGroups.validate(req);
        if (invalid == null && otherType(req.groupId())) {
            invalid = new org.apache.kafka.common.message.ShareGroupHeartbeatResponseData()
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + req.groupId() + " is not a share group.");
        }
        if (invalid != null) {
            return CoordinatorResult.of(new ShareGroups.HeartbeatResult(invalid, Map.of()));
        }
        CoordinatorResult<ShareGroups.HeartbeatResult, ShareGroupRecord> r =
                shareGroups.heartbeat(req, clientId, clientHost);
        return CoordinatorResult.of(wrap(r.records()), r.response());
    }

    ShareGroupDescribeResponseData.DescribedGroup describe(String groupId) {
        ShareGroup g = shareGroups.group(groupId);
        if (g == null) {
            return new ShareGroupDescribeResponseData.DescribedGroup().setGroupId(groupId)
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage(otherType(groupId) ? "Group " + groupId + " is not a share group."
                            : "Group " + groupId + " not found.");
        }
        return ShareGroupDescriber.describe(g, shareGroups.cluster());
    }

    /** The directory's view; fails with GroupIdNotFoundException when the id is another type's group. */
    Optional<ShareGroupDirectory.ShareGroupSummary> summary(String groupId) {
        ShareGroup g = shareGroups.group(groupId);
        if (g == null && otherType(groupId)) {
            throw new GroupIdNotFoundException("Group " + groupId + " is not a share group.");
        }
        return g == null ? Optional.empty() : Optional.of(ShareGroupDescriber.summary(g));
    }

    CoordinatorResult<Void, GroupRecord> initialized(String groupId, Map<Uuid, Set<Integer>> done,
                                                     Map<Uuid, Set<Integer>> failed) {
        CoordinatorResult<Void, ShareGroupRecord> r = shareGroups.initialized(groupId, done, failed);
        return CoordinatorResult.of(wrap(r.records()), null);
    }

    /** See {@link ShareGroupDirectory#updateInitialized}; throws the Kafka exception to answer. */
    CoordinatorResult<Void, GroupRecord> updateInitialized(String groupId, Map<Uuid, Set<Integer>> added,
                                                           Set<Uuid> removedTopics) {
        if (otherType(groupId)) {
            throw new GroupIdNotFoundException("Group " + groupId + " is not a share group.");
        }
        List<ShareGroupRecord> records = shareGroups.updateInitialized(groupId, added, removedTopics);
        if (records == null) {
            throw new GroupNotEmptyException("The share group " + groupId + " has active members.");
        }
        return CoordinatorResult.of(wrap(records), null);
    }

    /**
     * DeleteGroups of a share group: only an empty one. Its records are applied at once (the caller
     * builds the result the classic way); once they are durable, {@code deleted} gets the share
     * partitions whose state must go, and the response NONE.
     */
    void delete(ShareGroup g, java.util.concurrent.CompletableFuture<Errors> response,
                CoordinatorResult.Builder<GroupRecord> out,
                java.util.function.Consumer<Map<Uuid, Set<Integer>>> deleted) {
        if (!g.isEmpty()) {
            response.complete(Errors.NON_EMPTY_GROUP);
            return;
        }
        Map<Uuid, Set<Integer>> initialized = ShareGroupDescriber.summary(g).initializedPartitions();
        List<ShareGroupRecord> records = shareGroups.deletion(g);
        records.forEach(shareGroups::replay);
        out.append(wrap(records), (failure, next) -> {
            if (failure != null) {
                LOG.warn("share group {}: deletion could not be persisted", g.groupId(), failure);
                response.complete(Responses.forLogFailure(failure));
                return;
            }
            deleted.accept(initialized);
            response.complete(Errors.NONE);
        });
        LOG.debug("share group {}: deleted", g.groupId());
    }
}
