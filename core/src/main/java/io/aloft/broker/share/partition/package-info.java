/**
 * Share partitions (KIP-932) on the topic partition's leader: record states (AVAILABLE, ACQUIRED,
 * ACKNOWLEDGED, ARCHIVED), acquisition locks, delivery counts and the in-flight window, as
 * {@link io.aloft.broker.share.partition.SharePartitions}.
 */
package io.aloft.broker.share.partition;
