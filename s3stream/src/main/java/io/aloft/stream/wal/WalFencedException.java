package io.aloft.stream.wal;

import io.aloft.wal.WalException;

/** The log was taken over by another broker: this writer may acknowledge nothing more. */
public final class WalFencedException extends WalException {
    public WalFencedException(String message) {
        super(message);
    }
}
