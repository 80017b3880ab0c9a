package io.aloft.broker.share.state;

/**
 * What ReadShareGroupStateSummary answers for one share partition (DescribeShareGroupOffsets,
 * kafka-share-groups.sh --describe). Immutable.
 *
 * @param deliveryCompleteCount records at or above the start offset already acknowledged or archived
 *     (ReadShareGroupStateSummary v1, for the lag KIP-1226 reports); -1 when unknown
 */
public record ShareStateSummary(int stateEpoch, long startOffset, int leaderEpoch, int deliveryCompleteCount) {
}
