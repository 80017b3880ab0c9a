package io.aloft.broker.handler;

import io.aloft.controller.ControllerException;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.Errors;

/** Maps controller failures to the Kafka error a client should see (one place, for every handler). */
public final class ControllerErrors {
    private ControllerErrors() {
    }

    public static Errors toKafka(Throwable failure) {
        Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (e instanceof ControllerException ce) {
            return switch (ce.code()) {
                case TOPIC_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
                case TOPIC_NOT_FOUND -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                case PARTITION_NOT_FOUND -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                case INVALID_REQUEST -> Errors.INVALID_REQUEST;
                case UNAVAILABLE -> Errors.REQUEST_TIMED_OUT;
                case BROKER_NOT_FOUND, BROKER_NOT_ACTIVE, STALE_BROKER_EPOCH -> Errors.BROKER_NOT_AVAILABLE;
                case REQUEST_TOO_OLD -> Errors.UNKNOWN_SERVER_ERROR;
                case FEATURE_LEVEL_NOT_FINALIZED, UNSUPPORTED_FEATURE_LEVEL -> Errors.UNSUPPORTED_VERSION;
                case INVALID_FEATURE_UPDATE -> Errors.INVALID_UPDATE_VERSION;
            };
        }
        return Errors.forException(e);
    }

    /** The failure's message without its code prefix, for error_message fields. */
    public static String message(Throwable failure) {
        Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return e.getMessage();
    }
}
