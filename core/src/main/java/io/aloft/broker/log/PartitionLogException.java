package io.aloft.broker.log;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * A partition-log operation failed with a Kafka error the request handler answers with as is:
 * handlers map this exception to {@link #error()} at one place and nowhere else.
 *
 * <p>Immutable.
 */
public final class PartitionLogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errors error;

    public PartitionLogException(Errors error, String message) {
        super(message);
        this.error = Objects.requireNonNull(error);
    }

    public PartitionLogException(Errors error, String message, Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error);
    }

    /** The protocol error to answer with. */
    public Errors error() {
        return error;
    }

    @Override
    public String toString() {
        return "PartitionLogException(" + error + "): " + getMessage();
    }
}
