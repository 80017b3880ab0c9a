package io.aloft.wal;

import java.nio.file.Path;

/**
 * Told when a {@link BlockDeviceWal} stops accepting writes because its device failed: a record
 * write, an fsync or a header write returned an error (or threw). From then on every pending and
 * later append fails with {@link WalClosedException}; nothing already acknowledged is affected,
 * but the log can take no more writes, so whatever runs on it cannot continue. A broker stops on
 * this; a library user decides.
 *
 * <p>Called at most once per log, on the thread that saw the error (a {@code aloft-wal-io-*} or
 * the {@code aloft-wal-header-1} thread), before the appends pending at that moment are failed, so
 * it hears of the root cause before their callers react. It must not block and should hand off
 * anything slow. Closing the log is not a failure and is never reported.
 */
@FunctionalInterface
public interface WalFailureListener {

    /**
     * @param path the device or file of the failed log
     * @param cause the error the device returned
     */
    void walFailed(Path path, Throwable cause);
}
