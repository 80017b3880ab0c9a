package io.aloft.broker.log.cleaner;

import io.aloft.broker.log.AbortedTxn;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What one rewrite pass of the cleaner learns of the transactions in its range, read in offset
 * order (Kafka's cleaned-transaction bookkeeping, KIP-98 and KIP-534):
 * <ul>
 *   <li>a data batch of an aborted transaction may be discarded (its records never count: the
 *       transaction was aborted), and it marks its transaction as still having batches in the
 *       log;</li>
 *   <li>an ABORT marker may be discarded once no batch of its transaction was read before it in
 *       this pass: every record of the transaction is gone (removed by an earlier pass, or below
 *       the stream's start). Its aborted-transaction entry is then of no use to readers and is
 *       listed in {@link #emptiedAborts} for the index to forget;</li>
 *   <li>a COMMIT marker may be discarded once no batch of its transaction was read before it in
 *       this pass (its records were all superseded and removed earlier);</li>
 *   <li>an empty marker batch (emptied by an earlier pass) may always be discarded.</li>
 * </ul>
 * "May be discarded" is not "discarded now": as Kafka does, a marker that may go is kept until
 * its delete horizon, set by the first pass that finds it may go, to now plus
 * {@code delete.retention.ms}, so a consumer reading the range meanwhile still sees it (see
 * {@link BatchRewriter}). So an aborted transaction takes three passes to vanish entirely: its
 * records, then its entry (and the marker's horizon), then, after the horizon, its marker.
 *
 * <p>Not thread-safe: one instance per rewrite pass, on its cleaner thread.
 */
final class TransactionFilter {
    /** Aborted transactions not yet reached, by first offset. */
    private final PriorityQueue<AbortedTxn> pending = new PriorityQueue<>(
            Comparator.comparingLong(AbortedTxn::firstOffset));
    /** Per producer, its aborted transaction being read, and whether a batch of it was seen. */
    private final Map<Long, Ongoing> ongoingAborted = new HashMap<>();
    /** Producers with a batch of a (not aborted) transaction read since their last marker. */
    private final Set<Long> ongoingCommitted = new HashSet<>();
    private final List<AbortedTxn> emptied = new ArrayList<>();

    private static final class Ongoing {
        final AbortedTxn txn;
        boolean batchSeen;

        Ongoing(AbortedTxn txn) {
            this.txn = txn;
        }
    }

    /** @param aborted the aborted transactions with records in or below the range, any order */
    TransactionFilter(List<AbortedTxn> aborted) {
        pending.addAll(aborted);
    }

    /** A data batch was read: whether it belongs to an aborted transaction (its records all go). */
    boolean onDataBatch(RecordBatch batch) {
        reach(batch.lastOffset());
        if (!batch.isTransactional()) {
            return false;
        }
        Ongoing aborted = ongoingAborted.get(batch.producerId());
        if (aborted != null) {
            aborted.batchSeen = true;
            return true;
        }
        ongoingCommitted.add(batch.producerId());
        return false;
    }

    /** A marker batch was read: whether it may be discarded (see the class comment). */
    boolean onMarker(RecordBatch batch) {
        reach(batch.lastOffset());
        Iterator<Record> records = batch.iterator();
        if (!records.hasNext()) {
            return true; // emptied by an earlier pass: its transaction is long gone
        }
        ControlRecordType type = ControlRecordType.parse(records.next().key());
        long producerId = batch.producerId();
        switch (type) {
            case ABORT -> {
                Ongoing aborted = ongoingAborted.remove(producerId);
                if (aborted != null && aborted.batchSeen) {
                    return false;
                }
                if (aborted != null) {
                    emptied.add(aborted.txn);
                }
                return true;
            }
            case COMMIT -> {
                return !ongoingCommitted.remove(producerId);
            }
            default -> {
                return false;
            }
        }
    }

    /** Aborted transactions whose marker was read with no batch of theirs before it: their entries may go. */
    List<AbortedTxn> emptiedAborts() {
        return List.copyOf(emptied);
    }

    private void reach(long offset) {
        while (!pending.isEmpty() && pending.peek().firstOffset() <= offset) {
            AbortedTxn a = pending.poll();
            ongoingAborted.putIfAbsent(a.producerId(), new Ongoing(a));
        }
    }
}
