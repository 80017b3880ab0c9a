package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The transactions of one partition as readers see them:
 * <ul>
 *   <li><b>Unstable transactions</b>: for each transaction not yet decided durably, its first
 *       offset, and once its marker is appended, the offset just past the marker. The last stable
 *       offset (LSO) is the first offset of the oldest of them, or the high watermark when there
 *       is none: a marker appended but not yet durable still holds the LSO, since a failed append
 *       could lose it.</li>
 *   <li><b>Aborted transactions</b> (producer id, first offset, marker offset), in marker order:
 *       what a read_committed fetch returns with the batches it overlaps, so the consumer can drop
 *       the aborted records (Kafka's transaction index). Checkpointed (see {@link Checkpoint}),
 *       and forgotten once the log start passes their marker, or once compaction has removed
 *       every record of theirs ({@link #forget}).</li>
 * </ul>
 * As in Kafka, the LSO is never below the log start offset: records deleted from the head
 * (retention, DeleteRecords) take an open transaction's start with them, and the transaction
 * stays open until its marker.
 *
 * <p>Thread-safe, on its own monitor, which is never held while calling out: the owning
 * {@link PartitionLog} changes it under its own lock (appends, loading, log-start moves), fetches
 * read it from any thread, and the high watermark asks it for the LSO on the records stream's
 * acknowledgement thread when it wakes waiting read_committed fetches.
 */
final class TransactionIndex {
    /** Bytes of one aborted transaction in a checkpoint: producer id, first offset, last offset. */
    static final int ABORTED_BYTES = 8 + 8 + 8;
    private static final long OPEN = Long.MAX_VALUE;

    private final Object lock = new Object();
    /** First offset -> offset just past its marker (OPEN until the marker); guarded by lock. */
    private final TreeMap<Long, Long> unstable = new TreeMap<>();
    /** In marker order (so by last offset); guarded by lock. */
    private final List<AbortedTxn> aborted = new ArrayList<>();
    /** How many of the last aborted transactions no checkpoint holds yet; guarded by lock. */
    private int uncheckpointed;
    /** Whether one was removed other than from the head since the last checkpoint; guarded by lock. */
    private boolean removedInside;
    /** Whether {@link #unstable} is non-empty: reads of a log without transactions take no lock. Written under lock. */
    private volatile boolean anyUnstable;

    /** A transaction starts at {@code firstOffset}; called before its first batch is handed to the stream. */
    void begin(long firstOffset) {
        synchronized (lock) {
            unstable.put(firstOffset, OPEN);
            anyUnstable = true;
        }
    }

    /**
     * The transaction started at {@code firstOffset} ends with a marker at {@code markerOffset}: it
     * stops holding the LSO once the high watermark passes the marker.
     */
    void end(long producerId, long firstOffset, long markerOffset, boolean abort) {
        synchronized (lock) {
            unstable.replace(firstOffset, markerOffset + 1);
            if (abort) {
                aborted.add(new AbortedTxn(producerId, firstOffset, markerOffset));
                uncheckpointed++;
            }
        }
    }

    /**
     * The last stable offset at high watermark {@code hw}: the first offset of the oldest
     * transaction not durably decided, if below {@code hw}, and never below {@code logStart}.
     */
    long lastStableOffset(long hw, long logStart) {
        if (!anyUnstable) {
            return hw;
        }
        synchronized (lock) {
            long lso = hw;
            for (Iterator<Map.Entry<Long, Long>> it = unstable.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Long> e = it.next();
                if (e.getValue() <= hw) {
                    it.remove(); // decided and durable; the high watermark never moves back
                    continue;
                }
                lso = Math.min(e.getKey(), hw);
                break;
            }
            anyUnstable = !unstable.isEmpty();
            return Math.max(lso, logStart);
        }
    }

    /**
     * The aborted transactions a read of {@code [from, upTo)} must list: those whose records may
     * be there (first offset below {@code upTo}) and whose marker is not below {@code from}.
     */
    List<AbortedTxn> abortedIn(long from, long upTo) {
        synchronized (lock) {
            List<AbortedTxn> out = new ArrayList<>();
            for (int i = firstEndingAtOrAfter(from); i < aborted.size(); i++) {
                AbortedTxn a = aborted.get(i);
                if (a.firstOffset() < upTo) {
                    out.add(a);
                }
            }
            return out;
        }
    }

    /** Every aborted transaction with records below {@code end} (the log cleaner's view). */
    List<AbortedTxn> abortedBelow(long end) {
        return abortedIn(Long.MIN_VALUE, end);
    }

    /** Index of the first aborted transaction whose marker is at or after {@code offset}; call under lock. */
    private int firstEndingAtOrAfter(long offset) {
        int lo = 0;
        int hi = aborted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (aborted.get(mid).lastOffset() < offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The log start moved to {@code logStart}: aborted transactions ending below it can no longer be read. */
    void truncateHead(long logStart) {
        synchronized (lock) {
            aborted.subList(0, firstEndingAtOrAfter(logStart)).clear();
            uncheckpointed = Math.min(uncheckpointed, aborted.size());
        }
    }

    /**
     * Forgets these aborted transactions (compaction removed every record of theirs, so no read
     * needs them listed).
     */
    void forget(List<AbortedTxn> gone) {
        if (gone.isEmpty()) {
            return;
        }
        Set<AbortedTxn> set = new HashSet<>(gone);
        synchronized (lock) {
            if (aborted.removeIf(set::contains)) {
                removedInside = true;
                uncheckpointed = Math.min(uncheckpointed, aborted.size());
            }
        }
    }

    /** How many aborted transactions are kept (tests, checkpoint sizing). */
    int abortedCount() {
        synchronized (lock) {
            return aborted.size();
        }
    }

    /** The aborted transactions kept, oldest first (tests). */
    List<AbortedTxn> aborted() {
        synchronized (lock) {
            return Collections.unmodifiableList(new ArrayList<>(aborted));
        }
    }

    /*
     * Checkpoint section (big-endian): count (int), then per aborted transaction: producer id
     * (long), first offset (long), marker offset (long). In a full checkpoint (and in every
     * version-4 one) these are all the aborted transactions; in a partial version-5 one, those
     * added since the previous checkpoint (a log with many aborted transactions would otherwise
     * rewrite them all with every partial checkpoint). Removals need no record: those from the head
     * follow the checkpoint's log start, and any other ({@link #forget}) makes the next checkpoint
     * a full one. Unstable transactions are not written: a checkpoint covers durable data only,
     * where every ended transaction is decided, and open ones are rebuilt from the producers' state.
     */

    /** Whether the next checkpoint must hold the whole list (one was removed other than from the head). */
    boolean needsFullCheckpoint() {
        synchronized (lock) {
            return removedInside;
        }
    }

    int checkpointSize(boolean full) {
        synchronized (lock) {
            return 4 + (full ? aborted.size() : uncheckpointed) * ABORTED_BYTES;
        }
    }

    /**
     * Writes the section, all aborted transactions ({@code full}) or those no checkpoint holds
     * yet, and counts them as checkpointed.
     */
    void writeCheckpoint(ByteBuffer out, boolean full) {
        synchronized (lock) {
            int from = full ? 0 : aborted.size() - uncheckpointed;
            out.putInt(aborted.size() - from);
            for (AbortedTxn a : aborted.subList(from, aborted.size())) {
                out.putLong(a.producerId()).putLong(a.firstOffset()).putLong(a.lastOffset());
            }
            uncheckpointed = 0;
            removedInside = false;
        }
    }

    /** Forgets every aborted transaction (a checkpoint without them was loaded). */
    void clearAborted() {
        synchronized (lock) {
            aborted.clear();
            uncheckpointed = 0;
            removedInside = false;
        }
    }

    /**
     * Applies a checkpoint's section: the whole list ({@code complete}) replaces the aborted
     * transactions; otherwise the ones it holds follow those known (any already known, by marker
     * offset, is skipped).
     */
    void readCheckpoint(ByteBuffer in, boolean complete) {
        synchronized (lock) {
            if (complete) {
                aborted.clear();
            }
            int n = in.getInt();
            for (int i = 0; i < n; i++) {
                AbortedTxn a = new AbortedTxn(in.getLong(), in.getLong(), in.getLong());
                if (aborted.isEmpty() || aborted.get(aborted.size() - 1).lastOffset() < a.lastOffset()) {
                    aborted.add(a);
                }
            }
            uncheckpointed = 0;
            removedInside = false;
        }
    }
}
