package io.aloft.broker.coordinator;

/**
 * A coordinator record as the key and value of a Kafka record in the internal topic: the key is
 * what compaction goes by, a null value is a tombstone. Implementations are stateless.
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
}
