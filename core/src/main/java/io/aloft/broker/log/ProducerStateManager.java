package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Idempotent-producer state of one partition: per producer id, its epoch and its last
 * {@value #MAX_BATCHES} batches (sequence range and offsets), following Kafka 4's rules:
 * <ul>
 *   <li>an older epoch is refused with INVALID_PRODUCER_EPOCH (Kafka 2.7+ answers this rather
 *       than PRODUCER_FENCED so the producer can abort and retry);
 *   <li>a newer epoch must start at sequence 0, unless the producer was unknown;
 *   <li>the same epoch must continue the last sequence (wrapping after Integer.MAX_VALUE), else
 *       OUT_OF_ORDER_SEQUENCE_NUMBER;
 *   <li>a producer with no state (new, or expired) is accepted at any sequence: Kafka has not
 *       answered UNKNOWN_PRODUCER_ID on produce since KIP-360;
 *   <li>a retried batch equal to one of the last five is a duplicate: answered with its offsets.
 * </ul>
 * Transactions (KIP-98): a producer's transactional batch opens a transaction at its first offset
 * when none is open; while one is, a non-transactional batch is refused (INVALID_TXN_STATE). A
 * marker ({@link #checkMarker}, {@link #endTransaction}) ends it, and the producer remembers the
 * marker's coordinator epoch so that markers of an older coordinator are fenced. A producer with
 * an open transaction never expires: the transaction would hold the last stable offset forever
 * with nobody left to end it.
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} calls it under its lock.
 */
final class ProducerStateManager {
    static final int MAX_BATCHES = 5;

    /**
     * One batch of a producer, as remembered for duplicate detection.
     *
     * @param logAppendTimeMs what the append answered as log append time (-1 for CreateTime)
     */
    record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long maxTimestamp,
            long logAppendTimeMs) {
    }

    /** One producer's state. Mutable; copied before a request changes it. */
    static final class Entry {
        final long producerId;
        short epoch;
        long lastTimestamp;
        /** Coordinator epoch of the last marker, -1 before any. */
        int coordinatorEpoch = -1;
        /** First offset of the open transaction, -1 when none is open. */
        long txnFirstOffset = -1;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>();

        Entry(long producerId, short epoch, long lastTimestamp) {
            this.producerId = producerId;
            this.epoch = epoch;
            this.lastTimestamp = lastTimestamp;
        }

        Entry copy() {
            Entry e = new Entry(producerId, epoch, lastTimestamp);
            e.coordinatorEpoch = coordinatorEpoch;
            e.txnFirstOffset = txnFirstOffset;
            e.batches.addAll(batches);
            return e;
        }

        /** Opens a transaction at {@code firstOffset} for a transactional batch; refuses a plain one within one. */
        void trackTransaction(RecordBatch batch, long firstOffset) {
            if (txnFirstOffset >= 0) {
                if (!batch.isTransactional()) {
                    throw new PartitionLogException(Errors.INVALID_TXN_STATE, "producer " + producerId
                            + " sent a non-transactional batch within its transaction open since offset "
                            + txnFirstOffset);
                }
            } else if (batch.isTransactional()) {
                txnFirstOffset = firstOffset;
            }
        }

        BatchMetadata duplicateOf(RecordBatch batch) {
            if (batch.producerEpoch() != epoch) {
                return null;
            }
            for (BatchMetadata b : batches) {
                if (b.firstSeq() == batch.baseSequence() && b.lastSeq() == batch.lastSequence()) {
                    return b;
                }
            }
            return null;
        }

        void add(BatchMetadata b) {
            if (batches.size() == MAX_BATCHES) {
                batches.pollFirst();
            }
            batches.addLast(b);
            lastTimestamp = Math.max(lastTimestamp, b.maxTimestamp());
        }
    }

    private final Map<Long, Entry> producers = new HashMap<>();

    int size() {
        return producers.size();
    }

    /** Whether this partition remembers producer {@code producerId} (its sequence is then checked). */
    boolean knows(long producerId) {
        return producers.containsKey(producerId);
    }

    /** Whether producer {@code producerId} has a transaction open here at {@code epoch}. */
    boolean hasOngoingTransaction(long producerId, short epoch) {
        Entry e = producers.get(producerId);
        return e != null && e.txnFirstOffset >= 0 && e.epoch == epoch;
    }

    /** Every producer remembered, for DescribeProducers. */
    List<ActiveProducer> activeProducers() {
        List<ActiveProducer> out = new ArrayList<>(producers.size());
        for (Entry e : producers.values()) {
            int lastSeq = e.batches.isEmpty() ? -1 : e.batches.peekLast().lastSeq();
            out.add(new ActiveProducer(e.producerId, e.epoch, lastSeq, e.lastTimestamp, e.coordinatorEpoch,
                    e.txnFirstOffset));
        }
        return out;
    }

    /** First offsets of the open transactions (to rebuild the {@link TransactionIndex} after loading). */
    List<Long> openTransactions() {
        List<Long> out = new ArrayList<>();
        for (Entry e : producers.values()) {
            if (e.txnFirstOffset >= 0) {
                out.add(e.txnFirstOffset);
            }
        }
        return out;
    }

    /** For each producer remembered, the last offset of its last batch (the batch the log cleaner keeps). */
    Map<Long, Long> lastOffsets() {
        Map<Long, Long> out = new HashMap<>();
        for (Entry e : producers.values()) {
            if (!e.batches.isEmpty()) {
                out.put(e.producerId, e.batches.peekLast().lastOffset());
            }
        }
        return out;
    }

    /**
     * Per producer without a batch of data in its current epoch (a marker bumped it, or it has
     * written markers only), that epoch: the cleaner keeps its marker of that epoch.
     */
    Map<Long, Short> markerEpochs() {
        Map<Long, Short> out = new HashMap<>();
        for (Entry e : producers.values()) {
            if (e.batches.isEmpty()) {
                out.put(e.producerId, e.epoch);
            }
        }
        return out;
    }

    /** Changes for one request, applied to the manager only by {@link #commit}. */
    final class Update {
        private final Map<Long, Entry> changed = new HashMap<>();
        /** First offsets of the transactions this request opens. */
        private final List<Long> started = new ArrayList<>();

        private Entry current(long producerId) {
            Entry e = changed.get(producerId);
            if (e == null) {
                Entry existing = producers.get(producerId);
                if (existing != null) {
                    e = existing.copy();
                    changed.put(producerId, e);
                }
            }
            return e;
        }

        /** The remembered batch {@code batch} is a retry of, or null. */
        BatchMetadata duplicateOf(RecordBatch batch) {
            Entry e = current(batch.producerId());
            return e == null ? null : e.duplicateOf(batch);
        }

        /**
         * Checks the batch's epoch and sequence and records it at the given offsets.
         *
         * @param checkSequence false for a coordinator's own batch of the producer: only its epoch is checked
         * @throws PartitionLogException INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, or
         *     INVALID_TXN_STATE (a non-transactional batch within a transaction)
         */
        void append(RecordBatch batch, long firstOffset, long lastOffset, long maxTimestamp, long logAppendTimeMs,
                boolean checkSequence) {
            long pid = batch.producerId();
            short epoch = batch.producerEpoch();
            int firstSeq = batch.baseSequence();
            Entry e = current(pid);
            if (e == null) {
                e = new Entry(pid, epoch, maxTimestamp);
                changed.put(pid, e);
            } else if (epoch < e.epoch) {
                throw new PartitionLogException(Errors.INVALID_PRODUCER_EPOCH, "producer " + pid + " epoch " + epoch
                        + " is older than its current epoch " + e.epoch);
            } else if (epoch > e.epoch) {
                if (checkSequence && firstSeq != 0) {
                    throw new PartitionLogException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + pid
                            + " starts epoch " + epoch + " at sequence " + firstSeq + ", not 0");
                }
                e.epoch = epoch;
                e.batches.clear();
            } else if (checkSequence
                    && !inSequence(e.batches.isEmpty() ? -1 : e.batches.peekLast().lastSeq(), firstSeq)) {
                // No batch yet at this epoch (a marker moved the producer to it: transaction version 2
                // bumps the epoch with every marker): the epoch's first batch must be sequence 0, as in
                // Kafka, or a later batch taken first would leave the first one out for good.
                throw new PartitionLogException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + pid + " epoch "
                        + epoch + " sent sequence " + firstSeq + " after "
                        + (e.batches.isEmpty() ? "none" : String.valueOf(e.batches.peekLast().lastSeq())));
            }
            boolean wasOpen = e.txnFirstOffset >= 0;
            e.trackTransaction(batch, firstOffset);
            if (!wasOpen && e.txnFirstOffset >= 0) {
                started.add(firstOffset);
            }
            e.add(new BatchMetadata(firstSeq, batch.lastSequence(), firstOffset, lastOffset, maxTimestamp,
                    logAppendTimeMs));
        }

        /** Applies the changes; the transactions opened are registered with {@code txns}. */
        void commit(TransactionIndex txns) {
            producers.putAll(changed);
            started.forEach(txns::begin);
        }
    }

    Update update() {
        return new Update();
    }

    private static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
    }

    /**
     * Kafka's checks of a transaction marker (WriteTxnMarkers) against the producer's state; changes
     * nothing. A producer this partition does not know passes: Kafka writes its marker too.
     *
     * @param transactionVersion the coordinator's transaction version (KIP-1228): from 2 the
     *     coordinator bumps the epoch for every marker, so one at or below the current epoch is
     *     stale, except a retry of the marker that ended the last transaction (same epoch, no
     *     transaction open); before 2 only an older epoch is
     * @throws PartitionLogException INVALID_PRODUCER_EPOCH for a stale producer epoch,
     *     TRANSACTION_COORDINATOR_FENCED for a coordinator epoch older than the last marker's
     */
    void checkMarker(long producerId, short producerEpoch, int coordinatorEpoch, short transactionVersion) {
        Entry e = producers.get(producerId);
        if (e == null) {
            return;
        }
        boolean tv2 = transactionVersion >= 2;
        boolean stale = tv2 ? producerEpoch <= e.epoch : producerEpoch < e.epoch;
        if (stale && !(tv2 && producerEpoch == e.epoch && e.txnFirstOffset < 0)) {
            throw new PartitionLogException(Errors.INVALID_PRODUCER_EPOCH, "marker of producer " + producerId
                    + " has epoch " + producerEpoch + ", stale against its epoch " + e.epoch + " (transaction version "
                    + transactionVersion + ")");
        }
        if (coordinatorEpoch < e.coordinatorEpoch) {
            throw new PartitionLogException(Errors.TRANSACTION_COORDINATOR_FENCED, "marker of producer " + producerId
                    + " has coordinator epoch " + coordinatorEpoch + ", older than the last one seen, "
                    + e.coordinatorEpoch);
        }
    }

    /**
     * Records a marker of producer {@code producerId} (checked by {@link #checkMarker}, or stored):
     * its transaction, if one is open, ends; the producer takes the marker's epochs.
     *
     * @return the first offset of the transaction it ends, or -1 when none was open (a marker
     *     without data: it changes neither the last stable offset nor the aborted transactions)
     */
    long endTransaction(long producerId, short producerEpoch, int coordinatorEpoch, long timestamp) {
        Entry e = producers.get(producerId);
        if (e == null) {
            e = new Entry(producerId, producerEpoch, timestamp);
            producers.put(producerId, e);
        } else if (producerEpoch != e.epoch) {
            // A new epoch (TV2 bumps it with every marker): the next batch starts the sequence again.
            e.epoch = producerEpoch;
            e.batches.clear();
        }
        long first = e.txnFirstOffset;
        e.txnFirstOffset = -1;
        e.coordinatorEpoch = coordinatorEpoch;
        e.lastTimestamp = Math.max(e.lastTimestamp, timestamp);
        return first;
    }

    /**
     * Rebuilds state from a stored batch (replay after a restart). Stored batches were checked when
     * appended, so nothing is refused here; a marker that aborts a transaction adds it to
     * {@code txns}' aborted ones.
     */
    void replay(RecordBatch batch, TransactionIndex txns) {
        if (!batch.hasProducerId()) {
            return;
        }
        if (batch.isControlBatch()) {
            replayMarker(batch, txns);
            return;
        }
        Entry e = producers.get(batch.producerId());
        if (e == null || batch.producerEpoch() > e.epoch) {
            Entry fresh = new Entry(batch.producerId(), batch.producerEpoch(), batch.maxTimestamp());
            if (e != null) {
                fresh.coordinatorEpoch = e.coordinatorEpoch;
                fresh.txnFirstOffset = e.txnFirstOffset;
            }
            e = fresh;
            producers.put(batch.producerId(), e);
        }
        long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME
                ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
        if (e.txnFirstOffset < 0 && batch.isTransactional()) {
            e.txnFirstOffset = batch.baseOffset();
        }
        e.add(new BatchMetadata(batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset(),
                batch.maxTimestamp(), logAppendTime));
    }

    private void replayMarker(RecordBatch batch, TransactionIndex txns) {
        Iterator<Record> records = batch.iterator();
        if (!records.hasNext()) {
            return; // emptied by compaction: its transaction's records are gone
        }
        Record record = records.next();
        EndTransactionMarker marker = EndTransactionMarker.deserialize(record);
        long first = endTransaction(batch.producerId(), batch.producerEpoch(), marker.coordinatorEpoch(),
                record.timestamp());
        if (first >= 0) {
            txns.end(batch.producerId(), first, batch.baseOffset(), marker.controlType() == ControlRecordType.ABORT);
        }
    }

    /**
     * Forgets producers whose last batch's timestamp is older than {@code nowMs - expirationMs},
     * except those with an open transaction.
     */
    void expire(long nowMs, long expirationMs) {
        producers.values().removeIf(e -> e.txnFirstOffset < 0 && nowMs - e.lastTimestamp >= expirationMs);
    }

    /*
     * Snapshot layout (big-endian): producer count (int), then per producer: id (long), epoch
     * (short), last timestamp (long), [coordinator epoch (int), open transaction's first offset
     * (long): in a version-4 checkpoint], batch count (byte), then per batch: first sequence
     * (int), last sequence (int), first offset (long), last offset (long), max timestamp (long),
     * log append time (long).
     */
    private static final int TXN_BYTES = 4 + 8;
    private static final int PRODUCER_BYTES = 8 + 2 + 8 + TXN_BYTES + 1;
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8 + 8;

    /** Whether any producer has a transaction open or has had a marker (the snapshot needs their fields). */
    boolean hasTransactions() {
        for (Entry e : producers.values()) {
            if (e.txnFirstOffset >= 0 || e.coordinatorEpoch >= 0) {
                return true;
            }
        }
        return false;
    }

    int snapshotSize(boolean withTransactions) {
        int size = 4;
        for (Entry e : producers.values()) {
            size += PRODUCER_BYTES - (withTransactions ? 0 : TXN_BYTES) + e.batches.size() * BATCH_BYTES;
        }
        return size;
    }

    /** Writes the snapshot, with the transaction fields or (no producer has any) without. */
    void writeSnapshot(ByteBuffer out, boolean withTransactions) {
        out.putInt(producers.size());
        for (Entry e : producers.values()) {
            out.putLong(e.producerId).putShort(e.epoch).putLong(e.lastTimestamp);
            if (withTransactions) {
                out.putInt(e.coordinatorEpoch).putLong(e.txnFirstOffset);
            }
            out.put((byte) e.batches.size());
            for (BatchMetadata b : e.batches) {
                out.putInt(b.firstSeq()).putInt(b.lastSeq()).putLong(b.firstOffset()).putLong(b.lastOffset())
                        .putLong(b.maxTimestamp()).putLong(b.logAppendTimeMs());
            }
        }
    }

    /**
     * Replaces all state with a snapshot written by {@link #writeSnapshot}.
     *
     * @param withTransactions whether it has the transaction fields (checkpoint version 4 on);
     *     without them no producer has a transaction or marker
     */
    void readSnapshot(ByteBuffer in, boolean withTransactions) {
        producers.clear();
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            Entry e = new Entry(in.getLong(), in.getShort(), in.getLong());
            if (withTransactions) {
                e.coordinatorEpoch = in.getInt();
                e.txnFirstOffset = in.getLong();
            }
            int batches = in.get();
            for (int j = 0; j < batches; j++) {
                e.batches.addLast(new BatchMetadata(in.getInt(), in.getInt(), in.getLong(), in.getLong(),
                        in.getLong(), in.getLong()));
            }
            producers.put(e.producerId, e);
        }
    }
}
