package io.aloft.broker.txn;

/** A {@code __transaction_state} record that cannot be decoded; loading its partition fails. */
public final class CorruptTransactionRecordException extends RuntimeException {

    public CorruptTransactionRecordException(String message) {
        super(message);
    }

    public CorruptTransactionRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
