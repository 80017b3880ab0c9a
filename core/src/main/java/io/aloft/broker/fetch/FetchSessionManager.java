package io.aloft.broker.fetch;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Incremental fetch sessions (KIP-227) for consumer fetches: turns each Fetch request into a
 * {@link FetchPlan} by its session id and epoch, as Kafka defines them:
 *
 * <table>
 *   <caption>Session id and epoch of a request</caption>
 *   <tr><th>id</th><th>epoch</th><th>meaning</th></tr>
 *   <tr><td>0</td><td>-1</td><td>full fetch, no session (also every request below v7, which has no
 *       session fields)</td></tr>
 *   <tr><td>0</td><td>0</td><td>full fetch; create a session if a slot is free or can be freed</td></tr>
 *   <tr><td>id</td><td>0</td><td>close session id, then as (0, 0)</td></tr>
 *   <tr><td>id</td><td>-1</td><td>close session id; full fetch, no session</td></tr>
 *   <tr><td>id</td><td>n &ge; 1</td><td>incremental fetch: only the partitions added or changed, and
 *       those to forget</td></tr>
 * </table>
 *
 * An incremental fetch with an unknown id gets FETCH_SESSION_ID_NOT_FOUND, with another epoch than
 * the session's INVALID_FETCH_SESSION_EPOCH, and one that switches between topic names (below v13)
 * and topic ids (v13 and later) FETCH_SESSION_TOPIC_ID_ERROR; none of them changes the session.
 * A session whose partitions are all forgotten is closed, and that fetch answered without one.
 *
 * <p>Thread-safe (the cache and each session guard their own state).
 */
public final class FetchSessionManager {
    /** Fetch v7 introduced sessions. */
    static final short FIRST_SESSION_VERSION = 7;
    /** Fetch v13 names topics by id. */
    static final short FIRST_TOPIC_ID_VERSION = 13;

    private final FetchSessionCache cache;

    public FetchSessionManager(FetchSessionCache cache) {
        this.cache = cache;
    }

    public FetchSessionCache cache() {
        return cache;
    }

    /**
     * The plan for a consumer's fetch, its topics resolved against {@code view}. Closing a session
     * (a full fetch naming it) happens here; everything else a session goes through happens when
     * the plan responds.
     */
    public FetchPlan plan(FetchRequest request, MetadataCache.View view) {
        short version = request.version();
        boolean byIds = version >= FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = request.data();
        if (version < FIRST_SESSION_VERSION) {
            cache.stats().onFullFetch();
            return FullFetchPlan.sessionless(fullTargets(data, byIds, view), byIds);
        }
        FetchMetadata metadata = new FetchMetadata(data.sessionId(), data.sessionEpoch());
        if (!metadata.isFull()) {
            return incremental(data, metadata, byIds, view);
        }
        if (metadata.sessionId() != FetchMetadata.INVALID_SESSION_ID && cache.remove(metadata.sessionId())) {
            cache.stats().onClosed();
        }
        cache.stats().onFullFetch();
        List<FetchTarget> targets = fullTargets(data, byIds, view);
        if (metadata.epoch() == FetchMetadata.FINAL_EPOCH || cache.slots() == 0) {
            return FullFetchPlan.sessionless(targets, byIds);
        }
        return FullFetchPlan.creatingSession(targets, cache, byIds);
    }

    /**
     * The plan for a fetch that is answered without reading: each partition gets {@code error}
     * (or its own, an unknown topic id say), with no session. Follower fetches take it.
     */
    public static FetchPlan refuseAll(FetchRequest request, MetadataCache.View view, Errors error) {
        boolean byIds = request.version() >= FIRST_TOPIC_ID_VERSION;
        List<FetchTarget> refused = new ArrayList<>();
        for (FetchTarget t : fullTargets(request.data(), byIds, view)) {
            refused.add(t.error() != Errors.NONE ? t : new FetchTarget(t.topicName(), t.topicId(), t.request(), null, error));
        }
        return FullFetchPlan.sessionless(refused, byIds);
    }

    private static List<FetchTarget> fullTargets(FetchRequestData data, boolean byIds, MetadataCache.View view) {
        List<FetchTarget> out = new ArrayList<>();
        for (FetchTopic t : data.topics()) {
            String name = byIds ? topicName(view, t.topicId()) : t.topic();
            Uuid id = byIds ? t.topicId() : Uuid.ZERO_UUID;
            for (FetchPartition p : t.partitions()) {
                out.add(name == null ? new FetchTarget(null, id, p, null, Errors.UNKNOWN_TOPIC_ID)
                        : new FetchTarget(name, id, p, new TopicPartition(name, p.partition()), Errors.NONE));
            }
        }
        return out;
    }

    private FetchPlan incremental(FetchRequestData data, FetchMetadata metadata, boolean byIds,
            MetadataCache.View view) {
        FetchSession session = cache.get(metadata.sessionId());
        if (session == null) {
            cache.stats().onSessionIdNotFound();
            return FetchPlan.error(Errors.FETCH_SESSION_ID_NOT_FOUND, FetchMetadata.INVALID_SESSION_ID);
        }
        LinkedHashMap<PartitionKey, CachedPartition> next;
        List<CachedPartition> partitions;
        List<FetchTarget> targets;
        synchronized (session) {
            if (session.epoch() != metadata.epoch()) {
                cache.stats().onInvalidEpoch();
                return FetchPlan.error(Errors.INVALID_FETCH_SESSION_EPOCH, FetchMetadata.INVALID_SESSION_ID);
            }
            if (session.usesTopicIds != byIds) {
                cache.stats().onTopicIdError();
                return FetchPlan.error(Errors.FETCH_SESSION_TOPIC_ID_ERROR, FetchMetadata.INVALID_SESSION_ID);
            }
            next = applyChanges(session.partitionsLocked(), data, byIds);
            partitions = new ArrayList<>(next.values());
            targets = new ArrayList<>(partitions.size());
            Map<Uuid, String> names = null;
            for (CachedPartition p : partitions) {
                // While the metadata has not changed since a partition's last read, its target stands.
                FetchTarget target = p.targetIn(view);
                if (target == null) {
                    if (byIds && names == null) {
                        names = new HashMap<>();
                    }
                    target = byIds ? targetById(p, view, names)
                            : p.target(p.key.topicName(), Uuid.ZERO_UUID, Errors.NONE);
                    p.resolvedIn(view);
                }
                targets.add(target);
            }
        }
        if (next.isEmpty()) {
            // Every partition forgotten: the session ends, and this fetch is answered without one.
            if (cache.remove(session.id)) {
                cache.stats().onClosed();
            }
            return FullFetchPlan.sessionless(List.of(), byIds);
        }
        return new IncrementalFetchPlan(cache, session, metadata.epoch(), next, partitions, targets);
    }

    /**
     * What to read for a partition of a session by topic ids, as Kafka resolves it: the topic the
     * id names now; else, if the id once named a topic, by that name, which fails with
     * INCONSISTENT_TOPIC_ID if a topic of that name exists under another id (deleted and created
     * again) or as a missing partition if none does; else UNKNOWN_TOPIC_ID.
     *
     * @param names ids resolved for this request so far (one lookup per topic)
     */
    private static FetchTarget targetById(CachedPartition p, MetadataCache.View view, Map<Uuid, String> names) {
        Uuid id = p.key.topicId();
        String name = names.get(id);
        if (name == null && !names.containsKey(id)) {
            name = topicName(view, id);
            names.put(id, name);
        }
        if (name != null) {
            return p.target(name, id, Errors.NONE);
        }
        String known = p.knownName();
        if (known == null) {
            return p.target(null, id, Errors.UNKNOWN_TOPIC_ID);
        }
        return view.topic(known) != null ? p.target(known, id, Errors.INCONSISTENT_TOPIC_ID)
                : p.target(known, id, Errors.NONE);
    }

    /**
     * The session's partitions with the request's partitions added or replaced (in place, keeping
     * their order) and its forgotten partitions removed: the session's own map when the request
     * names none, else a copy, so the session is untouched until the response.
     */
    private static LinkedHashMap<PartitionKey, CachedPartition> applyChanges(
            LinkedHashMap<PartitionKey, CachedPartition> current, FetchRequestData data, boolean byIds) {
        if (data.topics().isEmpty() && data.forgottenTopicsData().isEmpty()) {
            return current;
        }
        LinkedHashMap<PartitionKey, CachedPartition> next = new LinkedHashMap<>(current);
        for (FetchTopic t : data.topics()) {
            for (FetchPartition p : t.partitions()) {
                PartitionKey key = byIds ? PartitionKey.byId(t.topicId(), p.partition())
                        : PartitionKey.byName(t.topic(), p.partition());
                CachedPartition old = next.get(key);
                next.put(key, old == null ? CachedPartition.added(key, p) : old.altered(p));
            }
        }
        for (ForgottenTopic f : data.forgottenTopicsData()) {
            for (int partition : f.partitions()) {
                next.remove(byIds ? PartitionKey.byId(f.topicId(), partition)
                        : PartitionKey.byName(f.topic(), partition));
            }
        }
        return next;
    }

    /** The name of the topic with this id here, or null. */
    private static String topicName(MetadataCache.View view, Uuid id) {
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return null;
        }
        TopicInfo topic = view.topic(new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()));
        return topic == null ? null : topic.name();
    }
}
