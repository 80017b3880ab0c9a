package io.aloft.broker.log;

/**
 * One record found by timestamp (a ListOffsets answer).
 *
 * <p>Immutable.
 *
 * @param timestamp the record's timestamp
 * @param offset the record's offset
 * @param leaderEpoch the partition leader epoch stored in the record's batch
 */
public record TimestampOffset(long timestamp, long offset, int leaderEpoch) {
}
