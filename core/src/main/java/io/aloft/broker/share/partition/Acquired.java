package io.aloft.broker.share.partition;

import io.aloft.broker.log.BatchRecords;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * What one acquisition gave a member: the stored batches holding the acquired records (sent as
 * they are; the client keeps only records inside {@code ranges}) and the ranges acquired, with
 * their delivery counts. Immutable.
 *
 * @param error NONE, or the partition's error (then no records)
 * @param records whole stored batches covering every range, by reference
 * @param ranges acquired offsets, sorted, not overlapping
 * @param acquisitionLockTimeoutMs the lock duration the records were acquired for (ShareFetch's
 *     AcquisitionLockTimeoutMs)
 */
public record Acquired(Errors error, String errorMessage, BatchRecords records, List<AcquiredRange> ranges,
        int acquisitionLockTimeoutMs) {

    public Acquired {
        ranges = List.copyOf(ranges);
    }

    public static Acquired failed(Errors error, String message) {
        return new Acquired(error, message, BatchRecords.EMPTY, List.of(), 0);
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** Offsets {@code firstOffset..lastOffset}, delivered {@code deliveryCount} times counting this one. */
    public record AcquiredRange(long firstOffset, long lastOffset, short deliveryCount) {
    }
}
