package io.aloft.broker.handler;

import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the share-state handlers (Initialize/Read/Write/Delete/ReadShareGroupStateSummary) answer for
 * one share partition whose call failed: the Kafka code of the share coordinator's exception (it fails
 * only with Kafka's exceptions, see ShareCoordinator) and its message. Immutable.
 */
record ShareStateErrors(Errors error, String message) {
    /** Kafka's answer for a negative partition index, before anything is asked of the coordinator. */
    static final ShareStateErrors NEGATIVE_PARTITION = new ShareStateErrors(Errors.INVALID_REQUEST,
            "The partition id cannot be a negative number.");

    static ShareStateErrors of(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        Errors error = t instanceof ApiException ? Errors.forException(t) : Errors.UNKNOWN_SERVER_ERROR;
        return new ShareStateErrors(error, t.getMessage() == null ? error.message() : t.getMessage());
    }
}
