/**
 * Share groups (KIP-932, queues for Kafka): broker settings ({@link io.aloft.broker.share.ShareGroupConfig})
 * and per-group settings ({@link io.aloft.broker.share.ShareGroupSettings}). The share partitions
 * live in {@code share.partition}, their durable state in {@code share.state}, the fetch and
 * acknowledge path in {@code share.fetch}; membership and assignment are the group coordinator's
 * ({@code group.share}).
 */
package io.aloft.broker.share;
