/**
 * Consumer groups of the KIP-848 protocol: the broker assigns partitions (server-side assignors,
 * {@link io.aloft.broker.group.consumer.assignor}) and members reconcile towards their target
 * assignment one heartbeat at a time, revoking before anything is handed to another member.
 *
 * <p>The state of a group ({@link io.aloft.broker.group.consumer.ConsumerGroup}) changes only by
 * replaying its records ({@link io.aloft.broker.group.consumer.ConsumerGroupRecord}), when they are
 * written and when the partition loads, so a reload rebuilds it exactly. Operations
 * ({@link io.aloft.broker.group.consumer.ConsumerGroupHeartbeats}, the timers of
 * {@link io.aloft.broker.group.consumer.ConsumerGroups}) compute records from the state without
 * changing it. This package knows nothing of classic groups or offsets: the shard of
 * {@code io.aloft.broker.group} holds both, routes records here, and encodes them.
 */
package io.aloft.broker.group.consumer;
