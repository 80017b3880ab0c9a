package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.fetch.SessionPartition;
import io.aloft.broker.share.fetch.ShareSessionCache;
import io.aloft.broker.share.partition.Acknowledgement;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData.AcknowledgePartition;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData.AcknowledgeTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ShareAcknowledge (KIP-932): a share group member acknowledges records it acquired, in its share
 * session ({@link ShareSessionCache}: it takes the session's next epoch; epoch 0 is
 * INVALID_SHARE_SESSION_EPOCH, as a ShareAcknowledge cannot open a session; epoch -1 closes the
 * session once the acknowledgements are applied, releasing what the member still holds here).
 * Renew acknowledgements (type 4, KIP-1222) only from v2 with IsRenewAck; they extend the locks,
 * and the response's AcquisitionLockTimeoutMs (v2) tells for how long.
 *
 * <p>Refused as a whole: GROUP_AUTHORIZATION_FAILED without READ on the group, INVALID_REQUEST
 * without a member id, the session errors. Per partition: UNKNOWN_TOPIC_ID,
 * TOPIC_AUTHORIZATION_FAILED, INVALID_REQUEST for malformed batches ({@link ShareAcknowledgements}),
 * and the share partition's errors; NOT_LEADER_OR_FOLLOWER names the current leader.
 *
 * <p>Thread-safe: runs on any network thread.
 */
public final class ShareAcknowledgeHandler implements ApiHandler<ShareAcknowledgeRequest> {
    private final MetadataCache cache;
    private final SharePartitions partitions;
    private final ShareSessionCache sessions;
    private final ShareGroupSettingsSource settings;

    public ShareAcknowledgeHandler(MetadataCache cache, SharePartitions partitions, ShareSessionCache sessions,
            ShareGroupSettingsSource settings) {
        this.cache = cache;
        this.partitions = partitions;
        this.sessions = sessions;
        this.settings = settings;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SHARE_ACKNOWLEDGE;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ShareAcknowledgeRequest request) {
        ShareAcknowledgeRequestData data = request.data();
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return ShareResponses.acknowledgeError(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        if (data.memberId() == null || data.memberId().isEmpty()) {
            return ShareResponses.acknowledgeError(Errors.INVALID_REQUEST);
        }
        Errors sessionError = sessions.acknowledge(data.groupId(), data.memberId(), data.shareSessionEpoch());
        if (sessionError != Errors.NONE) {
            return ShareResponses.acknowledgeError(sessionError);
        }
        Map<SessionPartition, List<Acknowledgement>> acks = new LinkedHashMap<>();
        for (AcknowledgeTopic t : data.topics()) {
            for (AcknowledgePartition p : t.partitions()) {
                acks.put(new SessionPartition(t.topicId(), p.partitionIndex()), p.acknowledgementBatches().stream()
                        .map(b -> new Acknowledgement(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes())).toList());
            }
        }
        boolean renewAllowed = request.version() >= 2 && data.isRenewAck();
        ShareTargets targets = new ShareTargets(cache.view(), context);
        return ShareAcknowledgements.apply(partitions, data.groupId(), data.memberId(), acks, targets, renewAllowed)
                .thenApply(results -> {
                    if (data.shareSessionEpoch() == ShareSessionCache.FINAL_EPOCH) {
                        sessions.close(data.groupId(), data.memberId());
                    }
                    return ShareResponses.acknowledged(cache.view(), context.listenerName(),
                            settings.settings(data.groupId()).recordLockDurationMs(), results);
                });
    }
}
