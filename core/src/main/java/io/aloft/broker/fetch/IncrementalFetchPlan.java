package io.aloft.broker.fetch;

import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * An incremental fetch of a session: reads every partition of the session (with the request's
 * additions, changes and forgotten partitions applied) and answers only the partitions the client
 * must hear about (see {@link CachedPartition#mustSend}).
 *
 * <p>The session moves forward only in {@link #respond}, under the session's monitor and only if
 * its epoch is still the one the request carried: so a request that fails leaves the session (its
 * epoch, partitions and last-sent state) as it was, and of two requests racing with the same
 * epoch the second to answer gets INVALID_FETCH_SESSION_EPOCH. Partitions that returned records
 * move to the end of the session's order, so that under a response size limit the next fetch
 * reads the others first (no partition starves).
 *
 * <p>Confined to its request; the session is shared.
 */
final class IncrementalFetchPlan implements FetchPlan {
    private final FetchSessionCache cache;
    private final FetchSession session;
    private final int requestEpoch;
    /** The session's partitions once this request applies: the session's own map when the request changes none. */
    private final LinkedHashMap<PartitionKey, CachedPartition> next;
    private final List<CachedPartition> partitions;
    private final List<FetchTarget> targets;

    /**
     * @param partitions the values of {@code next} in order, and {@code targets} what to read for each
     */
    IncrementalFetchPlan(FetchSessionCache cache, FetchSession session, int requestEpoch,
            LinkedHashMap<PartitionKey, CachedPartition> next, List<CachedPartition> partitions,
            List<FetchTarget> targets) {
        this.cache = cache;
        this.session = session;
        this.requestEpoch = requestEpoch;
        this.next = next;
        this.partitions = partitions;
        this.targets = targets;
    }

    @Override
    public List<FetchTarget> targets() {
        return targets;
    }

    @Override
    public FetchResponseData respond(List<PartitionData> answers) {
        List<Map.Entry<FetchTarget, PartitionData>> sent = new ArrayList<>();
        int size;
        synchronized (session) {
            if (session.epoch() != requestEpoch) {
                // Another request with the same epoch answered first (a duplicate): this one must not count.
                cache.stats().onInvalidEpoch();
                return FetchPlan.response(Errors.INVALID_FETCH_SESSION_EPOCH, session.id, List.of());
            }
            List<CachedPartition> withRecords = new ArrayList<>();
            for (int i = 0; i < partitions.size(); i++) {
                CachedPartition p = partitions.get(i);
                FetchTarget target = targets.get(i);
                PartitionData answer = answers.get(i);
                if (p.mustSend(answer)) {
                    sent.add(new SimpleImmutableEntry<>(target, answer));
                    if (FetchResponse.recordsSize(answer) > 0) {
                        withRecords.add(p);
                    }
                }
            }
            for (CachedPartition p : withRecords) {
                next.remove(p.key);
                next.put(p.key, p);
            }
            session.advanceLocked(next);
            size = next.size();
        }
        cache.resized(session, size);
        cache.stats().onIncrementalFetch();
        return FetchPlan.response(Errors.NONE, session.id, sent);
    }
}
