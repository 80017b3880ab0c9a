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
    private final int recordIndex;

    public PartitionLogException(Errors error, String message) {
        this(error, message, null, -1);
    }

    public PartitionLogException(Errors error, String message, Throwable cause) {
        this(error, message, cause, -1);
    }

    /**
     * A refusal caused by one record, which Produce v8+ reports in its record errors (KIP-467).
     *
     * @param recordIndex the record's index in its batch
     */
    public PartitionLogException(Errors error, String message, Throwable cause, int recordIndex) {
        super(message, cause);
        this.error = Objects.requireNonNull(error);
        this.recordIndex = recordIndex;
    }

    /** The index in its batch of the record that caused the refusal, or -1 if no single record did. */
    public int recordIndex() {
        return recordIndex;
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
