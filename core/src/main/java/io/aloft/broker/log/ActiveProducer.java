package io.aloft.broker.log;

/**
 * An idempotent or transactional producer a partition remembers, as DescribeProducers lists it.
 *
 * <p>Immutable.
 *
 * @param lastSequence the last sequence number of its last batch
 * @param lastTimestamp the largest timestamp of its batches and markers
 * @param coordinatorEpoch the coordinator epoch of its last transaction marker, -1 if none
 * @param currentTxnStartOffset first offset of its open transaction, -1 if none is open
 */
public record ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp,
        int coordinatorEpoch, long currentTxnStartOffset) {
}
