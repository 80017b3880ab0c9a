package io.aloft.broker.log;

/**
 * Where a leader epoch ends in a partition's log, as OffsetForLeaderEpoch answers: Kafka's
 * "undefined" is epoch -1 and offset -1.
 *
 * <p>Immutable.
 *
 * @param epoch the largest epoch at or below the one asked for that the log holds (or the one asked
 *     for, when the log no longer holds older ones)
 * @param endOffset the offset after that epoch's last record
 */
public record EpochEndOffset(int epoch, long endOffset) {
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(-1, -1L);
}
