package io.aloft.controller;

/**
 * The controller rejected a cluster command (streams and objects use
 * {@link io.aloft.stream.metadata.StreamMetadataException}), or could not be reached.
 */
public class ControllerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why. Codes are stable: they travel in replicated replies. */
    public enum Code {
        BROKER_NOT_FOUND,
        /** The broker epoch is not the broker's current one: that incarnation must re-register. */
        STALE_BROKER_EPOCH,
        /** The target broker cannot take partitions (fenced or draining). */
        BROKER_NOT_ACTIVE,
        TOPIC_EXISTS,
        TOPIC_NOT_FOUND,
        PARTITION_NOT_FOUND,
        INVALID_REQUEST,
        /** A retried request whose reply is no longer retained: whether it was applied is unknown. */
        REQUEST_TOO_OLD,
        /** No leader answered within the request timeout (client side). */
        UNAVAILABLE,
        /**
         * A log entry holds a record version of a feature level above the cluster's finalized one: it
         * is refused on every voter (none applies what a voter of the previous build could not read).
         */
        FEATURE_LEVEL_NOT_FINALIZED,
        /** A broker or voter whose build does not support the cluster's finalized feature level. */
        UNSUPPORTED_FEATURE_LEVEL,
        /** A feature level upgrade refused: a voter or broker lacks support, or it is a downgrade. */
        INVALID_FEATURE_UPDATE
    }

    private final Code code;

    public ControllerException(Code code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    public ControllerException(Code code, String message, Throwable cause) {
        super(code + ": " + message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
