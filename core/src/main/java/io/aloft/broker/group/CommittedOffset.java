package io.aloft.broker.group;

/**
 * One group's committed offset of one partition, as read for the lag meters. Immutable.
 */
public record CommittedOffset(String group, String topic, int partition, long offset) {
}
