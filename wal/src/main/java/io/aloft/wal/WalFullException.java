package io.aloft.wal;

/**
 * An append waited for trimmed space longer than {@code wal.append.timeout.ms}. The record was not
 * written; the caller may retry once the log's consumer has trimmed.
 */
public class WalFullException extends WalException {
    private static final long serialVersionUID = 1L;

    public WalFullException(String message) {
        super(message);
    }
}
