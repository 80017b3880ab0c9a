package io.aloft.broker.fetch;

import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * One partition of a fetch session: the fetch position and limits the client last sent for it
 * (replaced only when the client sends the partition again), and what the broker last told the
 * client about it, so an incremental response can leave out partitions with nothing new.
 *
 * <p>Externally synchronized: the request parameters are immutable; the last-sent state and the
 * resolved target are read and written under the monitor of the {@link FetchSession} that holds
 * the partition (a partition object belongs to one session).
 */
final class CachedPartition {
    /** Unknown: the next answer for the partition is always sent. */
    private static final long UNKNOWN = -1L;

    final PartitionKey key;
    /** The client's fetch offset, max bytes and leader epoch; borrowed from a parsed request, never modified. */
    final FetchPartition request;

    private long highWatermark = UNKNOWN;
    private long lastStableOffset = UNKNOWN;
    private long logStartOffset = UNKNOWN;
    /**
     * The name the topic id last resolved to (null while never resolved): a topic deleted and
     * created again under this name makes the id inconsistent with it, as Kafka tells clients.
     */
    private String knownName;
    /** The target of the last read, reused while the topic resolves the same way. */
    private FetchTarget target;
    /** The metadata {@link #target} was resolved in: while it is current, the target stands as it is. */
    private Object resolvedIn;

    private CachedPartition(PartitionKey key, FetchPartition request) {
        this.key = key;
        this.request = request;
    }

    /** A partition new to its session: its first answer is always sent. */
    static CachedPartition added(PartitionKey key, FetchPartition request) {
        return new CachedPartition(key, request);
    }

    /** A partition of a new session, with the answer a full fetch just sent for it as {@code target}. */
    static CachedPartition sent(PartitionKey key, FetchTarget target, PartitionData sent) {
        CachedPartition p = new CachedPartition(key, target.request());
        p.knownName = target.topicName();
        p.mustSend(sent);
        return p;
    }

    /** This partition with new fetch parameters from the client, keeping what was last sent. */
    CachedPartition altered(FetchPartition newRequest) {
        CachedPartition p = new CachedPartition(key, newRequest);
        p.highWatermark = highWatermark;
        p.lastStableOffset = lastStableOffset;
        p.logStartOffset = logStartOffset;
        p.knownName = knownName;
        p.target = target;
        return p;
    }

    /**
     * Whether the client must get this answer (new records, a changed high watermark, last stable
     * offset or log start offset, a preferred read replica, a diverging epoch, or an error), and
     * records it as sent. After an error the last-sent state is forgotten, so the first answer
     * without the error is sent too.
     */
    boolean mustSend(PartitionData answer) {
        if (answer.errorCode() != Errors.NONE.code()) {
            highWatermark = UNKNOWN;
            lastStableOffset = UNKNOWN;
            logStartOffset = UNKNOWN;
            return true;
        }
        boolean send = FetchResponse.recordsSize(answer) > 0 || answer.preferredReadReplica() >= 0
                || FetchResponse.isDivergingEpoch(answer);
        if (highWatermark != answer.highWatermark()) {
            highWatermark = answer.highWatermark();
            send = true;
        }
        if (lastStableOffset != answer.lastStableOffset()) {
            lastStableOffset = answer.lastStableOffset();
            send = true;
        }
        if (logStartOffset != answer.logStartOffset()) {
            logStartOffset = answer.logStartOffset();
            send = true;
        }
        return send;
    }

    /**
     * The target of the last read if it was resolved in {@code metadata} (the broker's metadata
     * snapshot, replaced on every change) and the client's fetch parameters are the same; else null.
     */
    FetchTarget targetIn(Object metadata) {
        return resolvedIn == metadata && target != null && target.request() == request ? target : null;
    }

    /** Marks the last target as resolved in {@code metadata}. */
    void resolvedIn(Object metadata) {
        resolvedIn = metadata;
    }

    /** The name the topic id last resolved to, or null if it never did. */
    String knownName() {
        return knownName;
    }

    /**
     * What to read for this partition now: {@code topicName} (null if unknown) with {@code error}
     * (NONE, or why not to read), remembering a name to read by; the last target is reused while
     * nothing changed.
     */
    FetchTarget target(String topicName, Uuid topicId, Errors error) {
        if (topicName != null && error == Errors.NONE) {
            knownName = topicName;
        }
        FetchTarget last = target;
        if (last != null && last.request() == request && last.error() == error
                && Objects.equals(last.topicName(), topicName)) {
            return last;
        }
        FetchTarget next = new FetchTarget(topicName, topicId, request,
                error == Errors.NONE ? new TopicPartition(topicName, key.partition()) : null, error);
        target = next;
        return next;
    }

    @Override
    public String toString() {
        return key + "@" + request.fetchOffset();
    }
}
