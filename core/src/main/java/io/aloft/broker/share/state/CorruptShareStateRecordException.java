package io.aloft.broker.share.state;

/** A {@code __share_group_state} record that cannot be decoded; loading its partition fails. */
public final class CorruptShareStateRecordException extends RuntimeException {

    public CorruptShareStateRecordException(String message) {
        super(message);
    }

    public CorruptShareStateRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
