package io.aloft.broker.coordinator;

/**
 * A coordinator record as the key and value of a Kafka record in the internal topic: the key is
 * what compaction goes by, a null value is a tombstone. Implementations are stateless.
 *
 * <p>A coordinator that takes part in transactions (the group coordinator, for TxnOffsetCommit)
 * also says which records belong to a producer's transaction ({@link #producerOf}: written in a
 * transactional batch) and which stand for a transaction marker ({@link #markerOf}: written as a
 * control batch), and reads them back ({@link #decodeTransactional}, {@link #decodeMarker}). The
 * defaults are those of a coordinator that writes neither: every record is plain.
 *
 * @param <R> the record type
 */
public interface CoordinatorRecordSerde<R> {

    /** The record's key; never null. */
    byte[] key(R record);

    /** The record's value, or null for a tombstone. */
    byte[] value(R record);

    /**
     * The record of a stored key and value.
     *
     * @param key null if the stored record had none (not written by this serde)
     * @throws RuntimeException of the coordinator's own kind for bytes it cannot read
     */
    R decode(byte[] key, byte[] value);

    /** The producer whose transaction {@code record} belongs to, or null for a plain record. */
    default TransactionalProducer producerOf(R record) {
        return null;
    }

    /** The marker {@code record} stands for (written as a control batch, not by key and value), or null. */
    default TransactionMarker markerOf(R record) {
        return null;
    }

    /** The record of a stored key and value from a transactional batch of {@code producer}. */
    default R decodeTransactional(TransactionalProducer producer, byte[] key, byte[] value) {
        return decode(key, value);
    }

    /** The record for a stored transaction marker, or null when the coordinator has no use for it. */
    default R decodeMarker(TransactionMarker marker) {
        return null;
    }
}
