package io.aloft.broker.log;

/**
 * An idempotent producer a partition remembers, as DescribeProducers lists it.
 *
 * <p>Immutable.
 *
 * @param lastSequence the last sequence number of its last batch
 * @param lastTimestamp the largest timestamp of its batches
 */
public record ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp) {
}
