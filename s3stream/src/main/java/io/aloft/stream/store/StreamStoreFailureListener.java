package io.aloft.stream.store;

/**
 * Told when a {@link StreamStore} gives up: its WAL failed (no append can be made durable any
 * more), an upload or commit failed in a way no retry can fix (metadata rejected the commit as
 * inconsistent, or an internal invariant broke), or one of its own background steps threw
 * unexpectedly. Every stream stops: pending and later appends fail. Data acknowledged before is
 * durable in the WAL and objects, for whoever recovers the WAL next.
 *
 * <p>An object-storage outage is not a failure: uploads are retried until storage answers, and
 * appends meanwhile wait for log-cache room (then fail with the retriable
 * {@link io.aloft.stream.StreamStoreFullException}). Closing the store is not a failure either.
 *
 * <p>Called at most once per store, on the thread that found the failure (a WAL, storage,
 * metadata or the {@code aloft-stream-upload} thread). It must not block and should hand off
 * anything slow.
 */
@FunctionalInterface
public interface StreamStoreFailureListener {

    /** @param cause why the store gave up; its message says which step failed */
    void storeFailed(Throwable cause);
}
