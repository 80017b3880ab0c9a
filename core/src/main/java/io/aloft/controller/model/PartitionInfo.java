package io.aloft.controller.model;

import java.util.List;

/**
 * One partition of a topic.
 *
 * @param partition index within the topic
 * @param brokerId the broker serving it, or -1 while no active broker can take it
 * @param leaderEpoch raised every time the serving broker changes (or re-registers)
 * @param streamIds the streams holding the partition's data, in a fixed role order chosen by the
 *     broker at topic creation
 */
public record PartitionInfo(int partition, int brokerId, int leaderEpoch, List<Long> streamIds) {
    public PartitionInfo {
        streamIds = List.copyOf(streamIds);
    }

    public PartitionInfo movedTo(int newBrokerId) {
        return new PartitionInfo(partition, newBrokerId, leaderEpoch + 1, streamIds);
    }
}
