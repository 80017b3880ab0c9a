package io.aloft.broker.fetch;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * One partition a fetch reads, resolved against the broker's metadata: from the request itself
 * (full fetches) or from the fetch session (incremental fetches, where most partitions are not in
 * the request).
 *
 * <p>Immutable (the {@code request} is never modified once parsed).
 *
 * @param topicName the topic's name, null when its id is not known here
 * @param topicId the topic's id as the client sent it (zero below Fetch v13)
 * @param request the client's fetch position and limits for the partition
 * @param tp the partition to read, null when the topic is not known
 * @param error a resolution error to answer without reading (UNKNOWN_TOPIC_ID), or NONE
 */
public record FetchTarget(String topicName, Uuid topicId, FetchPartition request, TopicPartition tp, Errors error) {
}
