package io.aloft.broker.share.partition;

import java.util.List;

/**
 * One AcknowledgementBatch of ShareFetch / ShareAcknowledge: offsets {@code firstOffset..lastOffset}
 * with either one type for all of them or one per offset. Immutable.
 *
 * @param types {@link #GAP} (0: no record at that offset, e.g. compacted away or a control
 *     record), {@link #ACCEPT} (1), {@link #RELEASE} (2), {@link #REJECT} (3), {@link #RENEW} (4,
 *     KIP-1222: extend the lock, v2 with IsRenewAck)
 */
public record Acknowledgement(long firstOffset, long lastOffset, List<Byte> types) {
    public static final byte GAP = 0;
    public static final byte ACCEPT = 1;
    public static final byte RELEASE = 2;
    public static final byte REJECT = 3;
    public static final byte RENEW = 4;

    public Acknowledgement {
        types = List.copyOf(types);
    }

    /** The type of {@code offset}, which must be within the batch. */
    public byte typeOf(long offset) {
        return types.size() == 1 ? types.get(0) : types.get((int) (offset - firstOffset));
    }
}
