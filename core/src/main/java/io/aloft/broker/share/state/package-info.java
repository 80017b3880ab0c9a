/**
 * Durable state of share partitions (KIP-932): {@link io.aloft.broker.share.state.ShareStatePersister}
 * and the share coordinator behind it, on the compacted {@code __share_group_state} topic
 * (Kafka's model: the state of a share partition lives apart from its data, keyed by group, topic
 * id and partition, so it survives restarts, moves and failovers of either).
 */
package io.aloft.broker.share.state;
