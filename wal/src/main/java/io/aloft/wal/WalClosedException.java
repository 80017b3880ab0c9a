package io.aloft.wal;

/** The log was closed, or failed on an I/O error, before the operation could complete. */
public class WalClosedException extends WalException {
    private static final long serialVersionUID = 1L;

    public WalClosedException(String message) {
        super(message);
    }

    public WalClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
