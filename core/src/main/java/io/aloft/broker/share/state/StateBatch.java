package io.aloft.broker.share.state;

/**
 * A run of offsets of a share partition in one state with one delivery count, as Kafka's
 * Read/WriteShareGroupState carry them. Offsets at or above the start offset and absent from every
 * batch are AVAILABLE with delivery count 0. Immutable.
 *
 * @param deliveryState Kafka's codes: {@link #AVAILABLE}, {@link #ACKNOWLEDGED}, {@link #ARCHIVED}
 *     (ACQUIRED, 1, is never stored: a stored acquisition would outlive its lock, so it is written as
 *     AVAILABLE with its delivery count, which is what a restart must redeliver)
 */
public record StateBatch(long firstOffset, long lastOffset, byte deliveryState, short deliveryCount) {
    public static final byte AVAILABLE = 0;
    public static final byte ACQUIRED = 1;
    public static final byte ACKNOWLEDGED = 2;
    public static final byte ARCHIVED = 4;

    public StateBatch {
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("lastOffset " + lastOffset + " < firstOffset " + firstOffset);
        }
    }
}
