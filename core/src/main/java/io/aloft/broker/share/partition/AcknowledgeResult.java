package io.aloft.broker.share.partition;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of acknowledging in one share partition (ShareAcknowledge's partition error, or
 * ShareFetch's AcknowledgeErrorCode). Immutable.
 */
public record AcknowledgeResult(Errors error, String errorMessage) {
    public static final AcknowledgeResult OK = new AcknowledgeResult(Errors.NONE, null);
}
