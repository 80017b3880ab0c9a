package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.ShardContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete, the offset part of DeleteGroups,
 * and retention.
 *
 * <p>An offset becomes visible when its record is durable, not when it is requested: the write
 * is issued on the shard's thread (so the log holds writes in the order they were issued) and
 * applied when the append completes, unless a later write of the same partition was issued
 * meanwhile (its sequence in {@link GroupOffsets#pending} wins, as it does in the log). Classic and
 * consumer groups validate requests their own way and share the writing.
 * One per shard, confined to the shard's thread. Holds no per-group state.
 */
final class OffsetManager {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetManager.class);

    /** What a fetch reports for a partition without a committed offset. */
    static final long NO_OFFSET = -1L;

    private final GroupCoordinatorConfig config;
    private final ShardContext<GroupRecord> ctx;
    private final MembershipManager membership;
    private final TopicIdResolver topicIds;

    OffsetManager(GroupCoordinatorConfig config, ShardContext<GroupRecord> ctx, MembershipManager membership,
                  TopicIdResolver topicIds) {
        this.config = config;
        this.ctx = ctx;
        this.membership = membership;
        this.topicIds = topicIds;
    }

    // ---- OffsetCommit --------------------------------------------------------------------

    /** OffsetCommit; {@code future} completes once the offsets are durable (or at once with an error). */
    void commit(ClassicGroup g, OffsetCommitRequestData req, short version,
                CompletableFuture<OffsetCommitResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        Errors error = validateCommit(g, req);
        if (error != Errors.NONE) {
            future.complete(commitResponse(req, version, (t, p) -> error));
            return;
        }
        GroupMember m = req.memberId() == null ? null : g.member(req.memberId());
        if (m != null) {
            membership.scheduleSession(g, m); // a commit proves the member alive, as a heartbeat does
        }
        write(g.groupId, g.offsets, req, version, future, out);
    }

    /**
     * Writes the offsets of a validated OffsetCommit for {@code groupId} (any kind of group);
     * {@code future} completes once they are durable.
     */
    void write(String groupId, GroupOffsets o, OffsetCommitRequestData req, short version,
               CompletableFuture<OffsetCommitResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        long now = ctx.nowMs();
        // retentionTimeMs exists in v2-4 only; -1 there and later means the broker's retention.
        long expire = version <= 4 && req.retentionTimeMs() >= 0 ? now + req.retentionTimeMs() : -1L;
        Map<TopicPartition, Errors> errors = new HashMap<>();
        List<GroupRecord> records = new ArrayList<>();
        Map<TopicPartition, Long> sequences = new HashMap<>();
        for (OffsetCommitRequestTopic t : req.topics()) {
            String name = version >= 10 ? topicIds.name(t.topicId()) : t.name();
            for (OffsetCommitRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(name == null ? "" : name, p.partitionIndex());
                String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
                if (name == null) {
                    errors.put(key(t, p), Errors.UNKNOWN_TOPIC_ID);
                } else if (metadata.getBytes(StandardCharsets.UTF_8).length > config.offsetMetadataMaxBytes()) {
                    errors.put(key(t, p), Errors.OFFSET_METADATA_TOO_LARGE);
                } else {
                    records.add(new GroupRecord.OffsetCommit(groupId, name, p.partitionIndex(),
                            p.committedOffset(), p.committedLeaderEpoch(), metadata, now, expire));
                    long seq = o.nextSequence();
                    o.pending.put(tp, seq);
                    sequences.put(tp, seq);
                }
            }
        }
        if (records.isEmpty()) {
            future.complete(commitResponse(req, version, (t, p) -> errors.getOrDefault(key(t, p), Errors.NONE)));
            return;
        }
        out.append(records, (failure, next) -> {
            Errors writeError = failure == null ? Errors.NONE : Responses.forLogFailure(failure);
            if (failure != null) {
                LOG.warn("group {}: offset commit could not be persisted", groupId, failure);
                sequences.forEach((tp, seq) -> o.pending.remove(tp, seq));
            } else {
                for (GroupRecord r : records) {
                    GroupRecord.OffsetCommit c = (GroupRecord.OffsetCommit) r;
                    TopicPartition tp = new TopicPartition(c.topic(), c.partition());
                    applyIfLatest(o, tp, sequences.get(tp), c);
                }
            }
            future.complete(commitResponse(req, version,
                    (t, p) -> errors.getOrDefault(key(t, p), writeError)));
        });
    }

    /** Kafka's classic rules: who may commit, with which generation, in which state. */
    private static Errors validateCommit(ClassicGroup g, OffsetCommitRequestData req) {
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        int generation = req.generationIdOrMemberEpoch();
        if (generation < 0 && g.is(GroupState.EMPTY)) {
            return Errors.NONE; // a "simple" commit: admin client, or a consumer without group management
        }
        boolean fromMember = generation >= 0 || (req.memberId() != null && !req.memberId().isEmpty())
                || req.groupInstanceId() != null;
        if (fromMember) {
            Errors e = SyncAndLeave.validate(g, req.groupInstanceId(), req.memberId(), generation);
            if (e != Errors.NONE) {
                return e;
            }
        } else if (!g.is(GroupState.EMPTY)) {
            return Errors.UNKNOWN_MEMBER_ID; // a simple commit must not overwrite an active group's offsets
        }
        // Assignments are being handed out; a commit now could be for partitions the member loses.
        return g.is(GroupState.COMPLETING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    private static TopicPartition key(OffsetCommitRequestTopic t, OffsetCommitRequestPartition p) {
        return new TopicPartition(t.name() + "/" + t.topicId(), p.partitionIndex());
    }

    private interface PartitionError {
        Errors of(OffsetCommitRequestTopic t, OffsetCommitRequestPartition p);
    }

    static OffsetCommitResponseData commitError(OffsetCommitRequestData req, short version, Errors error) {
        return commitResponse(req, version, (t, p) -> error);
    }

    private static OffsetCommitResponseData commitResponse(OffsetCommitRequestData req, short version,
                                                           PartitionError error) {
        List<OffsetCommitResponseTopic> topics = new ArrayList<>();
        for (OffsetCommitRequestTopic t : req.topics()) {
            List<OffsetCommitResponsePartition> partitions = new ArrayList<>();
            for (OffsetCommitRequestPartition p : t.partitions()) {
                partitions.add(new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.of(t, p).code()));
            }
            OffsetCommitResponseTopic rt = new OffsetCommitResponseTopic().setPartitions(partitions);
            if (version >= 10) {
                rt.setTopicId(t.topicId());
            } else {
                rt.setName(t.name());
            }
            topics.add(rt);
        }
        return new OffsetCommitResponseData().setTopics(topics);
    }

    private static void applyIfLatest(GroupOffsets o, TopicPartition tp, Long seq, GroupRecord.OffsetCommit value) {
        if (o.removed || seq == null || !seq.equals(o.pending.get(tp))) {
            return; // the group was deleted, or a later write of this partition was issued after this one
        }
        o.pending.remove(tp);
        if (value == null) {
            o.committed.remove(tp);
            TxnOffsetManager.onDeleted(o, tp);
        } else {
            o.committed.put(tp, value);
            TxnOffsetManager.onCommitted(o, tp);
        }
    }

    // ---- OffsetFetch ---------------------------------------------------------------------

    /** One topic of a fetch: by name, or by id (v10+); null partitions means all committed ones. */
    record TopicQuery(String name, Uuid id, List<Integer> partitions) {
    }

    record PartitionResult(int partition, long offset, int leaderEpoch, String metadata, Errors error) {
    }

    record TopicResult(String name, Uuid id, List<PartitionResult> partitions) {
    }

    /** A fetch's answer for one group: a group-level error (and no topics), or the topics. */
    record FetchResult(Errors error, List<TopicResult> topics) {
    }

    /**
     * Offsets {@code o} (null: an unknown group, which has none) for {@code topics}, or for every
     * topic with a commit when {@code topics} is null.
     */
    List<TopicResult> fetch(GroupOffsets o, List<TopicQuery> topics, boolean byId) {
        return fetch(o, topics, byId, false);
    }

    /**
     * As above; with {@code requireStable} (OffsetFetch v7+, KIP-447) a partition with offsets
     * pending in an open transaction is answered UNSTABLE_OFFSET_COMMIT (and no offset), so that a
     * consumer taking over from a transactional one retries until the transaction is decided.
     */
    List<TopicResult> fetch(GroupOffsets o, List<TopicQuery> topics, boolean byId, boolean requireStable) {
        List<TopicResult> out = new ArrayList<>();
        if (topics == null) {
            if (o == null) {
                return out;
            }
            Map<String, List<GroupRecord.OffsetCommit>> byTopic = new TreeMap<>();
            for (GroupRecord.OffsetCommit c : o.committed.values()) {
                byTopic.computeIfAbsent(c.topic(), k -> new ArrayList<>()).add(c);
            }
            byTopic.forEach((topic, commits) -> {
                Uuid id = byId ? topicIds.id(topic) : null;
                if (byId && id == null) {
                    return; // the topic is gone; a client asking by id cannot name it
                }
                commits.sort(Comparator.comparingInt(GroupRecord.OffsetCommit::partition));
                out.add(new TopicResult(topic, id, commits.stream().map(c -> requireStable
                        && TxnOffsetManager.hasPending(o, new TopicPartition(c.topic(), c.partition()))
                        ? unstable(c.partition()) : found(c)).toList()));
            });
            return out;
        }
        for (TopicQuery q : topics) {
            String name = q.name();
            List<PartitionResult> parts = new ArrayList<>();
            for (int p : q.partitions()) {
                if (name == null) {
                    parts.add(new PartitionResult(p, NO_OFFSET, -1, "", Errors.UNKNOWN_TOPIC_ID));
                    continue;
                }
                TopicPartition tp = new TopicPartition(name, p);
                if (requireStable && TxnOffsetManager.hasPending(o, tp)) {
                    parts.add(unstable(p));
                    continue;
                }
                GroupRecord.OffsetCommit c = o == null ? null : o.committed.get(tp);
                parts.add(c == null ? new PartitionResult(p, NO_OFFSET, -1, "", Errors.NONE) : found(c));
            }
            out.add(new TopicResult(name, q.id(), parts));
        }
        return out;
    }

    private static PartitionResult unstable(int partition) {
        return new PartitionResult(partition, NO_OFFSET, -1, "", Errors.UNSTABLE_OFFSET_COMMIT);
    }

    private static PartitionResult found(GroupRecord.OffsetCommit c) {
        return new PartitionResult(c.partition(), c.offset(), c.leaderEpoch(), c.metadata(), Errors.NONE);
    }

    // ---- OffsetDelete --------------------------------------------------------------------

    /**
     * Deletes offsets of an empty group, or of topics an active consumer group does not
     * subscribe to; offsets of subscribed topics get GROUP_SUBSCRIBED_TO_TOPIC.
     */
    void deleteOffsets(ClassicGroup g, OffsetDeleteRequestData req, CompletableFuture<OffsetDeleteResponseData> future,
                       CoordinatorResult.Builder<GroupRecord> out) {
        Optional<Set<String>> subscribed;
        if (g.is(GroupState.DEAD)) {
            future.complete(new OffsetDeleteResponseData().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()));
            return;
        } else if (g.is(GroupState.EMPTY)) {
            subscribed = Optional.of(Set.of());
        } else if (ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(g.protocolType)) {
            subscribed = g.subscribedTopics();
        } else {
            future.complete(new OffsetDeleteResponseData().setErrorCode(Errors.NON_EMPTY_GROUP.code()));
            return;
        }
        deleteOffsets(g.groupId, g.offsets, subscribed, req, future, out);
    }

    /**
     * Deletes the offsets of topics not in {@code subscribed} (empty Optional: the subscriptions are
     * unknown, so every topic counts as subscribed); subscribed ones get GROUP_SUBSCRIBED_TO_TOPIC.
     */
    void deleteOffsets(String groupId, GroupOffsets o, Optional<Set<String>> subscribed, OffsetDeleteRequestData req,
                       CompletableFuture<OffsetDeleteResponseData> future, CoordinatorResult.Builder<GroupRecord> out) {
        OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection topics =
                new OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection();
        List<GroupRecord> tombstones = new ArrayList<>();
        Map<TopicPartition, Long> sequences = new HashMap<>();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : req.topics()) {
            // Unknown subscriptions count as subscribed: better refuse than delete live offsets.
            boolean isSubscribed = subscribed.map(s -> s.contains(t.name())).orElse(true);
            OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection parts =
                    new OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection();
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                Errors e = isSubscribed ? Errors.GROUP_SUBSCRIBED_TO_TOPIC : Errors.NONE;
                parts.add(new OffsetDeleteResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(e.code()));
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                if (!isSubscribed && (o.committed.containsKey(tp) || o.pending.containsKey(tp)
                        || o.transactional.containsKey(tp))) {
                    tombstones.add(new GroupRecord.OffsetTombstone(groupId, tp.topic(), tp.partition()));
                    long seq = o.nextSequence();
                    o.pending.put(tp, seq);
                    sequences.put(tp, seq);
                }
            }
            topics.add(new OffsetDeleteResponseTopic().setName(t.name()).setPartitions(parts));
        }
        OffsetDeleteResponseData response = new OffsetDeleteResponseData().setTopics(topics);
        if (tombstones.isEmpty()) {
            future.complete(response);
            return;
        }
        out.append(tombstones, (failure, next) -> {
            if (failure != null) {
                LOG.warn("group {}: offset deletion could not be persisted", groupId, failure);
                sequences.forEach((tp, seq) -> o.pending.remove(tp, seq));
                future.complete(new OffsetDeleteResponseData()
                        .setErrorCode(Responses.forLogFailure(failure).code()));
                return;
            }
            sequences.forEach((tp, seq) -> applyIfLatest(o, tp, seq, null));
            future.complete(response);
        });
    }

    /**
     * Tombstones for every offset of {@code groupId}, including commits still being written and
     * offsets pending in transactions (Kafka deletes those with the group too).
     */
    static List<GroupRecord> allOffsetTombstones(String groupId, GroupOffsets o) {
        Set<TopicPartition> all = new HashSet<>(o.committed.keySet());
        all.addAll(o.pending.keySet());
        all.addAll(o.transactional.keySet());
        List<GroupRecord> out = new ArrayList<>();
        for (TopicPartition tp : all) {
            out.add(new GroupRecord.OffsetTombstone(groupId, tp.topic(), tp.partition()));
        }
        return out;
    }

    // ---- retention -----------------------------------------------------------------------

    /**
     * Deletes expired offsets of {@code g} (KIP-211): an explicit expiry time (OffsetCommit v2-4)
     * wins; otherwise offsets of an empty group expire {@code offsets.retention.minutes} after it
     * became empty (after their commit, for a group never managed by the coordinator), and offsets
     * of topics an active consumer group no longer subscribes to expire that long after their
     * commit. Then calls {@code then} with whether the group is left empty, without offsets or pending
     * writes (once the tombstones are durable, if there are any), and a builder for what it writes.
     */
    void expireOffsets(ClassicGroup g, CoordinatorResult.Builder<GroupRecord> out,
                       BiConsumer<Boolean, CoordinatorResult.Builder<GroupRecord>> then) {
        long now = ctx.nowMs();
        long retention = config.offsetsRetentionMs();
        Optional<Set<String>> subscribed = g.is(GroupState.EMPTY) ? Optional.of(Set.of()) : g.subscribedTopics();
        boolean consumerGroup = ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(g.protocolType);
        if (!g.is(GroupState.EMPTY) && !consumerGroup) {
            then.accept(false, out); // an active non-consumer group's topics are unknown: keep everything
            return;
        }
        expire(g.groupId, g.offsets, c -> {
            if (c.expireTimestampMs() >= 0) {
                return now >= c.expireTimestampMs();
            } else if (g.is(GroupState.EMPTY)) {
                long base = g.protocolType != null ? g.stateTimestampMs : c.commitTimestampMs();
                return now - base >= retention;
            }
            return !subscribed.map(s -> s.contains(c.topic())).orElse(true)
                    && now - c.commitTimestampMs() >= retention;
        }, out, () -> then.accept(isDisposable(g), out), next -> then.accept(isDisposable(g), next));
    }

    /**
     * Deletes the expired offsets of a consumer group (KIP-848): an explicit expiry time wins;
     * otherwise an offset expires {@code offsets.retention.minutes} after its commit once the group
     * is empty or no longer subscribes to its topic, as Kafka does for consumer groups. Then calls
     * {@code then} with a builder for what follows (after the tombstones are durable, if any).
     */
    void expireConsumerOffsets(String groupId, GroupOffsets o, boolean empty, Set<String> subscribed,
                               CoordinatorResult.Builder<GroupRecord> out,
                               java.util.function.Consumer<CoordinatorResult.Builder<GroupRecord>> then) {
        long now = ctx.nowMs();
        long retention = config.offsetsRetentionMs();
        expire(groupId, o, c -> c.expireTimestampMs() >= 0 ? now >= c.expireTimestampMs()
                : (empty || !subscribed.contains(c.topic())) && now - c.commitTimestampMs() >= retention,
                out, () -> then.accept(out), then);
    }

    private void expire(String groupId, GroupOffsets o, java.util.function.Predicate<GroupRecord.OffsetCommit> expired,
                        CoordinatorResult.Builder<GroupRecord> out, Runnable nothing,
                        java.util.function.Consumer<CoordinatorResult.Builder<GroupRecord>> afterWrite) {
        List<GroupRecord> tombstones = new ArrayList<>();
        Map<TopicPartition, Long> sequences = new HashMap<>();
        for (GroupRecord.OffsetCommit c : o.committed.values()) {
            TopicPartition tp = new TopicPartition(c.topic(), c.partition());
            // An offset with a transaction pending on it stays until the transaction is decided, as in Kafka.
            if (expired.test(c) && !o.pending.containsKey(tp) && !o.transactional.containsKey(tp)) {
                tombstones.add(new GroupRecord.OffsetTombstone(groupId, c.topic(), c.partition()));
                long seq = o.nextSequence();
                o.pending.put(tp, seq);
                sequences.put(tp, seq);
            }
        }
        if (tombstones.isEmpty()) {
            nothing.run();
            return;
        }
        LOG.debug("group {}: expiring {} offsets", groupId, tombstones.size());
        out.append(tombstones, (failure, next) -> {
            if (failure == null) {
                sequences.forEach((tp, seq) -> applyIfLatest(o, tp, seq, null));
            } else {
                sequences.forEach((tp, seq) -> o.pending.remove(tp, seq));
                LOG.warn("group {}: expired offsets could not be deleted", groupId, failure);
            }
            afterWrite.accept(next);
        });
    }

    /** Whether nothing is left of the group: no members, offsets or writes in flight. */
    static boolean isDisposable(ClassicGroup g) {
        return g.is(GroupState.EMPTY) && g.members.isEmpty() && g.pendingMembers.isEmpty() && g.offsets.isEmpty();
    }

    // ---- replay --------------------------------------------------------------------------

    static void replay(GroupOffsets o, GroupRecord.OffsetCommit c) {
        TopicPartition tp = new TopicPartition(c.topic(), c.partition());
        o.committed.put(tp, c);
        TxnOffsetManager.onCommitted(o, tp);
    }

    static void replay(GroupOffsets o, GroupRecord.OffsetTombstone t) {
        TopicPartition tp = new TopicPartition(t.topic(), t.partition());
        o.committed.remove(tp);
        TxnOffsetManager.onDeleted(o, tp);
    }
}
