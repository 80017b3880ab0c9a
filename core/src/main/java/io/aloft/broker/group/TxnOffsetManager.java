package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.ShardContext;
import io.aloft.broker.coordinator.TransactionMarker;
import io.aloft.broker.group.consumer.ConsumerGroup;
import io.aloft.broker.group.consumer.ConsumerGroups;
import io.aloft.broker.log.VerificationGuard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offsets committed within a producer's transaction (TxnOffsetCommit, KIP-98; member fencing of
 * KIP-447): written to the group's {@code __consumer_offsets} partition in a transactional batch of
 * the producer, then kept pending per (group, partition, producer) in {@link GroupOffsets#transactional},
 * invisible to OffsetFetch, until the transaction's marker reaches the partition
 * ({@link #complete}): COMMIT makes each pending offset the committed one, ABORT drops it.
 *
 * <p>Which offset wins when regular and transactional commits of one partition mix is Kafka's
 * rule: the one written last to the log. A pending offset therefore loses at COMMIT to a regular
 * commit, or a commit of another transaction, written after it (its {@link Pending#superseded}
 * flag); so a compacted log, which keeps only the last record of a key, replays to the same offsets.
 * A pending offset is applied when its record is durable, and a marker when it is, in log order, on
 * the live path and on replay alike. A tombstone of the partition (OffsetDelete, group deletion)
 * drops its pending offsets too, as Kafka does.
 *
 * <p>One per shard, confined to the shard's thread (the loading thread while loading).
 */
final class TxnOffsetManager {

    private static final Logger LOG = LoggerFactory.getLogger(TxnOffsetManager.class);

    /** One pending offset of one producer; mutable only by this class. */
    static final class Pending {
        final GroupRecord.OffsetCommit offset;
        /** Position among the shard's pending offsets in log order. */
        final long order;
        /** A later record of the partition (regular, or another transaction's committed) wins over this one. */
        boolean superseded;

        Pending(GroupRecord.OffsetCommit offset, long order) {
            this.offset = offset;
            this.order = order;
        }
    }

    private final GroupCoordinatorConfig config;
    private final ShardContext<GroupRecord> ctx;
    /** The shard's offsets by group id (shared with the shard). */
    private final Map<String, GroupOffsets> offsets;
    /** Groups each producer has pending offsets in (may name groups whose offsets went since). */
    private final Map<Long, Set<String>> groupsByProducer = new HashMap<>();
    private long nextOrder;

    TxnOffsetManager(GroupCoordinatorConfig config, ShardContext<GroupRecord> ctx, Map<String, GroupOffsets> offsets) {
        this.config = config;
        this.ctx = ctx;
        this.offsets = offsets;
    }

    // ---- TxnOffsetCommit -----------------------------------------------------------------

    /**
     * Kafka's checks of a TxnOffsetCommit against a classic group: as OffsetCommit's, except that a
     * request naming no member is accepted in any state (v0-2 carry no member) and a rebalance in
     * progress is no reason to refuse (the transaction is fenced by its producer epoch instead). A
     * group instance id must be a static member's (UNKNOWN_MEMBER_ID otherwise) held by this member
     * id (FENCED_INSTANCE_ID otherwise), as Kafka 4.3.1 answers.
     */
    static Errors validateClassic(ClassicGroup g, TxnOffsetCommitRequestData req) {
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        int generation = req.generationId();
        if (generation < 0 && g.is(GroupState.EMPTY)) {
            return Errors.NONE;
        }
        String memberId = req.memberId() == null ? "" : req.memberId();
        boolean fromMember = generation >= 0 || !memberId.isEmpty() || req.groupInstanceId() != null;
        if (!fromMember) {
            return Errors.NONE;
        }
        if (req.groupInstanceId() != null) {
            String holder = g.staticMembers.get(req.groupInstanceId());
            if (holder == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!holder.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        } else if (g.member(memberId) == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return generation == g.generationId ? Errors.NONE : Errors.ILLEGAL_GENERATION;
    }

    /**
     * Kafka's checks of a TxnOffsetCommit against a consumer group (KIP-848): a request naming no
     * member (epoch below 0, no member id) is accepted even while the group has members, as Kafka
     * 4.3.1 answers; a member's epoch must be its current one, any other is ILLEGAL_GENERATION.
     */
    static Errors validateConsumer(ConsumerGroups consumerGroups, ConsumerGroup g, TxnOffsetCommitRequestData req) {
        if (req.generationId() < 0 && (req.memberId() == null || req.memberId().isEmpty())) {
            return Errors.NONE;
        }
        Errors error = consumerGroups.validateOffsetAccess(g, req.memberId(), req.generationId(), true);
        return error == Errors.STALE_MEMBER_EPOCH ? Errors.ILLEGAL_GENERATION : error;
    }

    /**
     * Writes a validated TxnOffsetCommit's offsets for {@code groupId} as one transactional batch of
     * the producer; {@code response} completes once it is durable, when the offsets become pending.
     * With {@code guard} (KIP-890, null for none) the batch may open the producer's transaction in
     * the partition only if it has not ended there since the transaction was checked.
     */
    void write(String groupId, GroupOffsets o, TxnOffsetCommitRequestData req, VerificationGuard guard,
               CompletableFuture<TxnOffsetCommitResponseData> response, CoordinatorResult.Builder<GroupRecord> out) {
        long now = ctx.nowMs();
        Map<TopicPartition, Errors> errors = new HashMap<>();
        List<GroupRecord> records = new ArrayList<>();
        for (TxnOffsetCommitRequestTopic t : req.topics()) {
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
                if (metadata.getBytes(StandardCharsets.UTF_8).length > config.offsetMetadataMaxBytes()) {
                    errors.put(new TopicPartition(t.name(), p.partitionIndex()), Errors.OFFSET_METADATA_TOO_LARGE);
                } else {
                    // Transactional offsets never carry an expiry time of their own (no retention field).
                    records.add(new GroupRecord.TxnOffsetCommit(req.producerId(), req.producerEpoch(),
                            new GroupRecord.OffsetCommit(groupId, t.name(), p.partitionIndex(), p.committedOffset(),
                                    p.committedLeaderEpoch(), metadata, now, -1L)));
                }
            }
        }
        if (records.isEmpty()) {
            response.complete(response(req, (t, p) -> errors.getOrDefault(new TopicPartition(t, p), Errors.NONE)));
            return;
        }
        out.verifiedBy(guard).append(records, (failure, next) -> {
            Errors writeError = failure == null ? Errors.NONE : writeError(failure);
            if (failure != null) {
                LOG.debug("group {}: transactional offsets of producer {} not written", groupId, req.producerId(),
                        failure);
            } else if (!o.removed) {
                for (GroupRecord r : records) {
                    addPending(groupId, o, (GroupRecord.TxnOffsetCommit) r);
                }
            }
            response.complete(response(req, (t, p) -> errors.getOrDefault(new TopicPartition(t, p), writeError)));
        });
    }

    /**
     * A failed append's code: a stale producer epoch as the partition said it (the producer is
     * fenced), and so a transaction that ended since it was verified (INVALID_TXN_STATE, as Kafka
     * answers); anything else as for any write of the group log.
     */
    private static Errors writeError(Throwable failure) {
        Throwable t = failure.getCause() != null && !(failure instanceof ApiException) ? failure.getCause() : failure;
        if (t instanceof ApiException && (Errors.forException(t) == Errors.INVALID_PRODUCER_EPOCH
                || Errors.forException(t) == Errors.INVALID_TXN_STATE)) {
            return Errors.forException(t);
        }
        return Responses.forLogFailure(failure);
    }

    /** A response with every partition of {@code req} answered {@code error}. */
    static TxnOffsetCommitResponseData errorResponse(TxnOffsetCommitRequestData req, Errors error) {
        return response(req, (t, p) -> error);
    }

    private static TxnOffsetCommitResponseData response(TxnOffsetCommitRequestData req,
                                                        BiFunction<String, Integer, Errors> error) {
        TxnOffsetCommitResponseData out = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestTopic t : req.topics()) {
            TxnOffsetCommitResponseTopic rt = new TxnOffsetCommitResponseTopic().setName(t.name());
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                rt.partitions().add(new TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.apply(t.name(), p.partitionIndex()).code()));
            }
            out.topics().add(rt);
        }
        return out;
    }

    // ---- state changes (live once durable, and on replay) --------------------------------

    /** A durable transactional offset: pending in its producer's transaction. */
    void addPending(String groupId, GroupOffsets o, GroupRecord.TxnOffsetCommit r) {
        GroupRecord.OffsetCommit c = r.offset();
        o.transactional.computeIfAbsent(new TopicPartition(c.topic(), c.partition()), k -> new HashMap<>())
                .put(r.producerId(), new Pending(c, ++nextOrder));
        groupsByProducer.computeIfAbsent(r.producerId(), k -> new HashSet<>()).add(groupId);
    }

    /** A durable regular commit of {@code tp}: it was written after every offset pending for it, so it wins. */
    static void onCommitted(GroupOffsets o, TopicPartition tp) {
        Map<Long, Pending> pending = o.transactional.get(tp);
        if (pending != null) {
            pending.values().forEach(p -> p.superseded = true);
        }
    }

    /** A durable tombstone of {@code tp}: its pending offsets go with it, as in Kafka. */
    static void onDeleted(GroupOffsets o, TopicPartition tp) {
        o.transactional.remove(tp);
    }

    /**
     * A durable transaction marker: the producer's pending offsets in every group of the partition
     * become committed (COMMIT; unless written over since) or go (ABORT). A producer with nothing
     * pending (a marker written again) changes nothing.
     */
    void complete(TransactionMarker marker) {
        Set<String> groupIds = groupsByProducer.remove(marker.producerId());
        if (groupIds == null) {
            return;
        }
        for (String groupId : groupIds) {
            GroupOffsets o = offsets.get(groupId);
            if (o == null) {
                continue; // the group and its offsets were deleted meanwhile
            }
            Iterator<Map.Entry<TopicPartition, Map<Long, Pending>>> it = o.transactional.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<TopicPartition, Map<Long, Pending>> e = it.next();
                Pending p = e.getValue().remove(marker.producerId());
                if (p != null && marker.commit() && !p.superseded) {
                    o.committed.put(e.getKey(), p.offset);
                    // Transactions written before this one lose to it when they commit later.
                    e.getValue().values().forEach(other -> other.superseded |= other.order < p.order);
                }
                if (e.getValue().isEmpty()) {
                    it.remove();
                }
            }
        }
    }

    /** Whether {@code tp} of the group has offsets pending in an open transaction (KIP-447's unstable offsets). */
    static boolean hasPending(GroupOffsets o, TopicPartition tp) {
        return o != null && o.transactional.containsKey(tp);
    }
}
