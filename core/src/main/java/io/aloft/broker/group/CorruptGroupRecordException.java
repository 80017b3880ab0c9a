package io.aloft.broker.group;

/** A {@code __consumer_offsets} record that cannot be decoded; loading its partition fails. */
public final class CorruptGroupRecordException extends RuntimeException {

    public CorruptGroupRecordException(String message) {
        super(message);
    }

    public CorruptGroupRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
