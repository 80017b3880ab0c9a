package io.aloft.broker.share;

/**
 * The settings of one share group: the group's own configs (Kafka's GROUP config resource keys
 * {@code share.record.lock.duration.ms}, {@code share.delivery.count.limit},
 * {@code share.partition.max.record.locks}, {@code share.auto.offset.reset},
 * {@code share.isolation.level}, {@code share.session.timeout.ms},
 * {@code share.heartbeat.interval.ms}, {@code share.renew.acknowledge.enable}) over the broker's
 * {@code group.share.*} defaults ({@link ShareGroupConfig#brokerDefaults()}). Immutable.
 *
 * @param readCommitted {@code share.isolation.level=read_committed}: acquire only below the last
 *     stable offset and never records of aborted transactions
 */
public record ShareGroupSettings(int recordLockDurationMs, int deliveryCountLimit, int partitionMaxRecordLocks,
        AutoOffsetReset autoOffsetReset, boolean readCommitted, int sessionTimeoutMs, int heartbeatIntervalMs,
        boolean renewAcknowledgeEnable) {

    /**
     * Where a share partition with no state starts: {@code latest} (Kafka's default), {@code earliest},
     * or {@code by_duration:<ISO-8601 duration>} (the first record at or after now minus the duration).
     *
     * @param durationMs only for BY_DURATION
     */
    public record AutoOffsetReset(Kind kind, long durationMs) {
        public enum Kind { EARLIEST, LATEST, BY_DURATION }

        public static final AutoOffsetReset EARLIEST = new AutoOffsetReset(Kind.EARLIEST, 0);
        public static final AutoOffsetReset LATEST = new AutoOffsetReset(Kind.LATEST, 0);
    }
}
