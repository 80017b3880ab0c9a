package io.aloft.broker.coordinator;

/**
 * A transaction marker as a coordinator writes it into its own partition: a control batch of
 * {@code producerId} at {@code producerEpoch} with one COMMIT ({@code commit}) or ABORT record,
 * stamped with the transaction coordinator's epoch (what fences a marker from a coordinator that
 * has moved). Kafka's group coordinator receives these for the {@code __consumer_offsets}
 * partitions a transaction's offsets went to. Immutable.
 */
public record TransactionMarker(long producerId, short producerEpoch, int coordinatorEpoch, boolean commit) {
}
