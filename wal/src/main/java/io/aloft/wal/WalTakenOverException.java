package io.aloft.wal;

/**
 * Another broker took this log over (see {@link BlockWalTakeOver}): its header carries a newer
 * epoch than the one this log writes with. The log accepts and acknowledges nothing more.
 */
public final class WalTakenOverException extends WalClosedException {
    private static final long serialVersionUID = 1L;

    public WalTakenOverException(String message) {
        super(message);
    }
}
