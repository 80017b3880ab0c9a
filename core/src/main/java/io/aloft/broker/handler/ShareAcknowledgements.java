package io.aloft.broker.handler;

import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.share.fetch.SessionPartition;
import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acknowledgement;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * The acknowledgements of a ShareAcknowledge, or piggybacked on a ShareFetch: checked as Kafka
 * 4.3 checks them (compared on raw frames), then applied per partition through
 * {@link SharePartitions#acknowledge}, all partitions at once.
 *
 * <p>A partition's batches are refused with INVALID_REQUEST, and none of them applied, when a batch
 * ends before it starts, starts before the previous one ended (a batch may start at the
 * previous one's last offset, as Kafka allows), has no types, has several types but not one per
 * offset, or has a type other than 0-3 (4, renew, only from v2 with IsRenewAck).
 *
 * <p>Stateless.
 */
final class ShareAcknowledgements {
    private ShareAcknowledgements() {
    }

    /** NONE, or INVALID_REQUEST for the partition (see the class comment). */
    static Errors check(List<Acknowledgement> batches, boolean renewAllowed) {
        long previousEnd = -1;
        byte maxType = renewAllowed ? Acknowledgement.RENEW : Acknowledgement.REJECT;
        for (Acknowledgement b : batches) {
            if (b.firstOffset() > b.lastOffset() || b.firstOffset() < previousEnd || b.types().isEmpty()
                    || (b.types().size() > 1 && b.lastOffset() - b.firstOffset() != b.types().size() - 1)) {
                return Errors.INVALID_REQUEST;
            }
            for (byte t : b.types()) {
                if (t < Acknowledgement.GAP || t > maxType) {
                    return Errors.INVALID_REQUEST;
                }
            }
            previousEnd = b.lastOffset();
        }
        return Errors.NONE;
    }

    /**
     * Applies each partition's batches; completes with a result per partition of {@code acks}, in
     * its order, never exceptionally.
     */
    static CompletableFuture<Map<SessionPartition, AcknowledgeResult>> apply(SharePartitions partitions,
            String groupId, String memberId, Map<SessionPartition, List<Acknowledgement>> acks, ShareTargets targets,
            boolean renewAllowed) {
        Map<SessionPartition, CompletableFuture<AcknowledgeResult>> pending = new LinkedHashMap<>();
        acks.forEach((p, batches) -> pending.put(p, applyOne(partitions, groupId, memberId, p, batches, targets,
                renewAllowed)));
        return CompletableFuture.allOf(pending.values().toArray(CompletableFuture[]::new)).handle((v, e) -> {
            Map<SessionPartition, AcknowledgeResult> out = new LinkedHashMap<>();
            pending.forEach((p, f) -> out.put(p, f.join())); // each handled below: never fails
            return out;
        });
    }

    private static CompletableFuture<AcknowledgeResult> applyOne(SharePartitions partitions, String groupId,
            String memberId, SessionPartition p, List<Acknowledgement> batches, ShareTargets targets,
            boolean renewAllowed) {
        ShareTargets.Target target = targets.resolve(p);
        if (!target.ok()) {
            return CompletableFuture.completedFuture(new AcknowledgeResult(target.error(), null));
        }
        Errors invalid = check(batches, renewAllowed);
        if (invalid != Errors.NONE) {
            return CompletableFuture.completedFuture(new AcknowledgeResult(invalid, null));
        }
        CompletableFuture<AcknowledgeResult> result;
        try {
            result = partitions.acknowledge(groupId, memberId, target.tp(), batches);
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result.handle((r, e) -> e == null && r != null ? r
                : new AcknowledgeResult(e == null ? Errors.UNKNOWN_SERVER_ERROR : PartitionErrors.toKafka(e),
                        e == null ? null : PartitionErrors.message(e)));
    }
}
