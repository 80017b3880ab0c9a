/**
 * Share groups (KIP-932) in the group coordinator: membership and assignment. A share group's
 * members heartbeat (ShareGroupHeartbeat) and are told which partitions to fetch from; unlike a
 * consumer group, several members may share a partition (the share partition on the partition's
 * leader hands out records one batch at a time), so there is no revocation protocol: a member's
 * assignment is simply replaced by its part of the newest target assignment at its next heartbeat.
 *
 * <p>As in {@code group.consumer}, the state of a group ({@link io.aloft.broker.group.share.ShareGroup})
 * changes only by replaying its records ({@link io.aloft.broker.group.share.ShareGroupRecord}), when
 * written and when the partition loads. The shard of {@code io.aloft.broker.group} holds
 * {@link io.aloft.broker.group.share.ShareGroups} beside the classic and consumer groups, routes
 * records here and encodes them.
 */
package io.aloft.broker.group.share;
