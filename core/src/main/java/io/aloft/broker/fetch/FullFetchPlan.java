package io.aloft.broker.fetch;

import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;

/**
 * A full fetch: reads every partition of the request and answers every one. Sessionless (session
 * id 0: below Fetch v7, with epoch -1, or with sessions off), or creating a session from the
 * request's partitions and their answers, if the cache has or can free a slot.
 *
 * <p>Confined to its request.
 */
final class FullFetchPlan implements FetchPlan {
    private final List<FetchTarget> targets;
    /** Where a new session goes, or null for a sessionless fetch. */
    private final FetchSessionCache cache;
    private final boolean usesTopicIds;

    private FullFetchPlan(List<FetchTarget> targets, FetchSessionCache cache, boolean usesTopicIds) {
        this.targets = targets;
        this.cache = cache;
        this.usesTopicIds = usesTopicIds;
    }

    static FullFetchPlan sessionless(List<FetchTarget> targets, boolean usesTopicIds) {
        return new FullFetchPlan(targets, null, usesTopicIds);
    }

    static FullFetchPlan creatingSession(List<FetchTarget> targets, FetchSessionCache cache, boolean usesTopicIds) {
        return new FullFetchPlan(targets, cache, usesTopicIds);
    }

    @Override
    public List<FetchTarget> targets() {
        return targets;
    }

    @Override
    public FetchResponseData respond(List<PartitionData> answers) {
        // A partition named twice is answered once, where it was first named, with its last answer (as Kafka).
        LinkedHashMap<PartitionKey, Map.Entry<FetchTarget, PartitionData>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < targets.size(); i++) {
            FetchTarget t = targets.get(i);
            PartitionKey key = usesTopicIds ? PartitionKey.byId(t.topicId(), t.request().partition())
                    : PartitionKey.byName(t.topicName(), t.request().partition());
            byPartition.put(key, new SimpleImmutableEntry<>(t, answers.get(i)));
        }
        int sessionId = 0;
        if (cache != null) {
            LinkedHashMap<PartitionKey, CachedPartition> partitions = new LinkedHashMap<>();
            byPartition.forEach((key, e) -> partitions.put(key, CachedPartition.sent(key, e.getKey(), e.getValue())));
            sessionId = cache.create(usesTopicIds, partitions);
        }
        return FetchPlan.response(Errors.NONE, sessionId, byPartition.values());
    }
}
