package io.aloft.wal;

/** Base of the write-ahead log's own failures. */
public class WalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WalException(String message) {
        super(message);
    }

    public WalException(String message, Throwable cause) {
        super(message, cause);
    }
}
