package io.aloft.broker.share.partition;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * Whether a member may apply a list of acknowledgements to a share partition: every batch has
 * known types (one, or one per offset), batches are in order without overlap, and every offset
 * in the in-flight window is ACQUIRED by that member (a GAP may also name an offset archived
 * already: the client reports offsets it found no record at); offsets below the start offset are
 * ignored, as Kafka ignores them. Checked whole before anything is
 * applied, so a refused list changes nothing. Stateless.
 */
final class AcknowledgementCheck {
    private AcknowledgementCheck() {
    }

    /** Null when the list may be applied; else the partition's error. Call under the share partition's lock. */
    static AcknowledgeResult check(InFlightRecords records, String memberId, List<Acknowledgement> acks) {
        long previousLast = Long.MIN_VALUE;
        for (Acknowledgement ack : acks) {
            long span = ack.lastOffset() - ack.firstOffset() + 1;
            if (ack.firstOffset() < 0 || span <= 0 || ack.types().isEmpty()
                    || (ack.types().size() != 1 && ack.types().size() != span)) {
                return new AcknowledgeResult(Errors.INVALID_REQUEST, "acknowledgement batch " + ack.firstOffset()
                        + ".." + ack.lastOffset() + " has " + ack.types().size() + " types");
            }
            if (ack.firstOffset() <= previousLast) {
                return new AcknowledgeResult(Errors.INVALID_REQUEST, "acknowledgement batches overlap or are out "
                        + "of order at offset " + ack.firstOffset());
            }
            previousLast = ack.lastOffset();
            for (byte t : ack.types()) {
                if (t < Acknowledgement.GAP || t > Acknowledgement.RENEW) {
                    return new AcknowledgeResult(Errors.INVALID_REQUEST, "unknown acknowledge type " + t);
                }
            }
            // Offsets below the start offset are done (acknowledged, archived, or reset away): Kafka
            // ignores acknowledgements of them, so a repeated acknowledgement is not an error.
            long from = Math.max(ack.firstOffset(), records.start());
            if (from > ack.lastOffset()) {
                continue;
            }
            if (!records.contains(from) || !records.contains(ack.lastOffset())) {
                return notHeld(from, ack.lastOffset(), records);
            }
            for (long o = from; o <= ack.lastOffset(); o++) {
                byte state = records.state(o);
                boolean held = state == InFlightRecords.ACQUIRED && records.lock(o).memberId.equals(memberId);
                boolean gapOverArchived = state == InFlightRecords.ARCHIVED && ack.typeOf(o) == Acknowledgement.GAP;
                if (!held && !gapOverArchived) {
                    return notHeld(o, o, records);
                }
            }
        }
        return null;
    }

    private static AcknowledgeResult notHeld(long first, long last, InFlightRecords records) {
        return new AcknowledgeResult(Errors.INVALID_RECORD_STATE, "offsets " + first + ".." + last
                + " are not acquired by this member (in flight: " + records.start() + ".." + records.end() + ")");
    }
}
