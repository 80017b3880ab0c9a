package io.aloft.broker.log;

import java.nio.ByteBuffer;

/**
 * What a partition remembers of its key compaction, checkpointed with the rest of its state
 * (section of a version-3 {@link Checkpoint}):
 * <ul>
 *   <li>{@code cleanedUpTo}: the log is compacted below this offset (each key's latest record below
 *       it is all that is left there, tombstones aside); the next cleaning builds its key map from
 *       here (Kafka's cleaner-offset checkpoint).</li>
 *   <li>{@code pendingEnd}: a cleaning of the range below this offset was being committed when the
 *       checkpoint was written, or -1. Whether the commit happened is not known after a crash, so
 *       a log loaded with it set rebuilds its time index below it from the data, whichever bytes
 *       are in force.</li>
 * </ul>
 * Losing progress is harmless: cleaning again from an older {@code cleanedUpTo} gives the same
 * records.
 *
 * <pre>
 * layout (big-endian): cleaned up to (long), pending end (long)
 * </pre>
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} uses it under its lock.
 */
final class CleanerState {
    static final int SIZE = 8 + 8;

    long cleanedUpTo;
    long pendingEnd = -1;

    void write(ByteBuffer out) {
        out.putLong(cleanedUpTo).putLong(pendingEnd);
    }

    void read(ByteBuffer in) {
        cleanedUpTo = in.getLong();
        pendingEnd = in.getLong();
    }
}
