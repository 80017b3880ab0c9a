package io.aloft.broker.share.fetch;

import org.apache.kafka.common.Uuid;

/**
 * A partition of a share session, as ShareFetch names it: by topic id (the name is looked up on
 * each request, so a deleted topic shows as UNKNOWN_TOPIC_ID rather than under a stale name).
 * Immutable.
 */
public record SessionPartition(Uuid topicId, int partition) {
}
