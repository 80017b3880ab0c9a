package io.aloft.broker.coordinator;

/**
 * The producer (id and epoch) whose transaction a coordinator record belongs to: such records are
 * written in a transactional batch of that producer, which a later {@link TransactionMarker} of
 * the same producer ends. Immutable.
 */
public record TransactionalProducer(long producerId, short producerEpoch) {
}
