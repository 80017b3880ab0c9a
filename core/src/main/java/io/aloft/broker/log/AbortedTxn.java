package io.aloft.broker.log;

/**
 * An aborted transaction of one producer in a partition, as read_committed fetches list it (Kafka's
 * {@code AbortedTransaction}: producer id and first offset); consumers drop that producer's
 * transactional records from {@code firstOffset} until they reach its abort marker.
 *
 * <p>Immutable.
 *
 * @param firstOffset offset of the transaction's first batch in this partition
 * @param lastOffset offset of its ABORT marker
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset) {
}
