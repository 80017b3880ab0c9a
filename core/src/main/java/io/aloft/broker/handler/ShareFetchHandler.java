package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.fetch.SessionPartition;
import io.aloft.broker.share.fetch.ShareAcquirer;
import io.aloft.broker.share.fetch.ShareSessionCache;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acknowledgement;
import io.aloft.broker.share.partition.Acquired;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData.FetchPartition;
import org.apache.kafka.common.message.ShareFetchRequestData.FetchTopic;
import org.apache.kafka.common.message.ShareFetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ShareFetch (KIP-932): acquires records for a share group member, in its share session
 * ({@link ShareSessionCache}), and applies the acknowledgements piggybacked on the request first,
 * so records it releases may be acquired again in the same fetch. When nothing can be acquired it
 * waits up to MaxWaitMs ({@link ShareAcquirer}). Answers, as Kafka 4.3 does, only partitions with
 * news (records, an error, or an acknowledgement result), even for a session's first fetch.
 *
 * <p>Refused as a whole: GROUP_AUTHORIZATION_FAILED without READ on the group; INVALID_REQUEST for
 * no member id, for acknowledgements in a new session, and for a renew-only fetch (v2 IsRenewAck)
 * that also asks for records (any of MaxWaitMs, MinBytes, MaxBytes, MaxRecords, BatchSize not 0);
 * the session errors. Per partition: UNKNOWN_TOPIC_ID (Kafka 4.3 answers its whole request with
 * UNKNOWN_SERVER_ERROR there, and keeps failing the session: Aloft answers the partition),
 * TOPIC_AUTHORIZATION_FAILED without READ on the topic, and the share partition's own errors;
 * NOT_LEADER_OR_FOLLOWER names the current leader (see {@link ShareResponses}).
 *
 * <p>BatchSize is not used: acquired ranges are as the share partition gives them.
 *
 * <p>Thread-safe: runs on any network thread; the session cache and share partitions guard their
 * own state.
 */
public final class ShareFetchHandler implements ApiHandler<ShareFetchRequest> {
    private final MetadataCache cache;
    private final SharePartitions partitions;
    private final ShareSessionCache sessions;
    private final ShareGroupSettingsSource settings;
    private final ShareAcquirer acquirer;

    public ShareFetchHandler(MetadataCache cache, SharePartitions partitions, ShareSessionCache sessions,
            ShareGroupSettingsSource settings, ScheduledExecutorService timer) {
        this.cache = cache;
        this.partitions = partitions;
        this.sessions = sessions;
        this.settings = settings;
        this.acquirer = new ShareAcquirer(partitions, timer, PartitionErrors::toKafka);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SHARE_FETCH;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, ShareFetchRequest request) {
        ShareFetchRequestData data = request.data();
        if (!context.authorized(AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return ShareResponses.fetchError(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        boolean renewOnly = request.version() >= 2 && data.isRenewAck();
        if (data.memberId() == null || data.memberId().isEmpty() || (renewOnly && (data.maxWaitMs() != 0
                || data.minBytes() != 0 || data.maxBytes() != 0 || data.maxRecords() != 0 || data.batchSize() != 0))) {
            return ShareResponses.fetchError(Errors.INVALID_REQUEST);
        }
        List<SessionPartition> requested = new ArrayList<>();
        Map<SessionPartition, List<Acknowledgement>> acks = new LinkedHashMap<>();
        for (FetchTopic t : data.topics()) {
            for (FetchPartition p : t.partitions()) {
                SessionPartition sp = new SessionPartition(t.topicId(), p.partitionIndex());
                requested.add(sp);
                if (!p.acknowledgementBatches().isEmpty()) {
                    acks.put(sp, p.acknowledgementBatches().stream().map(b -> new Acknowledgement(b.firstOffset(),
                            b.lastOffset(), b.acknowledgeTypes())).toList());
                }
            }
        }
        List<SessionPartition> forgotten = new ArrayList<>();
        for (ForgottenTopic t : data.forgottenTopicsData()) {
            t.partitions().forEach(p -> forgotten.add(new SessionPartition(t.topicId(), p)));
        }
        ShareSessionCache.FetchStep step = sessions.fetch(data.groupId(), data.memberId(), data.shareSessionEpoch(),
                requested, forgotten, !acks.isEmpty());
        if (step.error() != Errors.NONE) {
            return ShareResponses.fetchError(step.error());
        }
        ShareTargets targets = new ShareTargets(cache.view(), context);
        return ShareAcknowledgements.apply(partitions, data.groupId(), data.memberId(), acks, targets, renewOnly)
                .thenCompose(ackResults -> {
                    if (step.mode() == ShareSessionCache.Mode.FINAL) {
                        sessions.close(step); // after the acknowledgements: they were the member's last word
                    }
                    Map<SessionPartition, ShareTargets.Target> resolved = new LinkedHashMap<>();
                    List<TopicIdPartition> toAcquire = new ArrayList<>();
                    boolean refusedAny = false;
                    // A renew-only fetch acknowledges and acquires nothing.
                    if (step.mode() != ShareSessionCache.Mode.FINAL && !renewOnly) {
                        for (SessionPartition p : rotated(step.partitions(), data.shareSessionEpoch())) {
                            ShareTargets.Target target = targets.resolve(p);
                            resolved.put(p, target);
                            if (target.ok()) {
                                toAcquire.add(target.tp());
                            } else {
                                refusedAny = true;
                            }
                        }
                    }
                    boolean recordLimit = request.version() >= 2 && data.shareAcquireMode() == 1;
                    // A partition refused (unknown topic, no READ) is news the client acts on: no long poll.
                    int maxWaitMs = refusedAny ? 0 : data.maxWaitMs();
                    return acquirer.acquire(new ShareAcquirer.Request(data.groupId(), data.memberId(), toAcquire,
                            data.maxBytes(), data.maxRecords(), recordLimit, maxWaitMs))
                            .thenApply(acquired -> respond(context, data.groupId(), resolved, acquired, ackResults));
                });
    }

    /**
     * The session's partitions starting at a different one each epoch, so that when the budgets
     * run out the same partitions are not always the ones left without records.
     */
    static List<SessionPartition> rotated(List<SessionPartition> partitions, int epoch) {
        int n = partitions.size();
        if (n < 2) {
            return partitions;
        }
        int start = Math.floorMod(epoch, n);
        List<SessionPartition> out = new ArrayList<>(partitions.subList(start, n));
        out.addAll(partitions.subList(0, start));
        return out;
    }

    private AbstractResponse respond(RequestContext context, String groupId,
            Map<SessionPartition, ShareTargets.Target> resolved, Map<TopicIdPartition, Acquired> acquired,
            Map<SessionPartition, AcknowledgeResult> ackResults) {
        ShareResponses.FetchBuilder out = new ShareResponses.FetchBuilder(cache.view(), context.listenerName(),
                settings.settings(groupId).recordLockDurationMs());
        resolved.forEach((p, target) -> {
            if (!target.ok()) {
                out.fetchError(p, target.error());
            } else {
                Acquired a = acquired.get(target.tp());
                if (a != null && (a.error() != Errors.NONE || !a.isEmpty())) {
                    out.acquired(p, a);
                }
            }
        });
        ackResults.forEach((p, r) -> out.acknowledged(p, r));
        return out.build();
    }
}
