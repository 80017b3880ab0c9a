package io.aloft.broker.share.partition;

import io.aloft.broker.log.AbortedTxn;
import io.aloft.broker.log.BatchRecords;
import io.aloft.broker.log.LogReadResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One acquisition's pass over the batches a log read returned: which offsets the member gets.
 * Walks the batches in offset order from the read offset and, per offset:
 * <ul>
 *   <li>below the window's start: done already, skipped;
 *   <li>inside the window: acquired if AVAILABLE (delivery count + 1), archived instead if its
 *       count already reached the delivery limit; any other state is someone else's or done;
 *   <li>at the window's end: the window grows by it (never past {@code maxInFlight}) and it is
 *       acquired with delivery count 1.
 * </ul>
 * Offsets no batch holds (removed by compaction) and records never to be delivered (control
 * batches, and for read_committed the batches of aborted transactions) are ARCHIVED as they are
 * passed: the client never sees them, and the start offset moves past them.
 *
 * <p>{@code recordLimit} (ShareFetch's record_limit mode) stops at exactly {@code maxRecords}
 * records; otherwise (batch_optimized) the pass stops at the first batch boundary at or after
 * {@code maxRecords} records, so a member gets whole batches (Kafka rounds so too), never more than
 * the window allows.
 *
 * <p>Not thread-safe: runs under the lock of its {@link SharePartition}, with no I/O.
 */
final class AcquireScan {
    private final InFlightRecords records;
    private final LongConsumer dirty;
    private final int deliveryLimit;
    private final int maxInFlight;

    /** Offsets acquired, as ranges of one delivery count. */
    final List<Acquired.AcquiredRange> ranges = new ArrayList<>();
    int acquired;
    /** Whether durable state changed (an archive on the delivery limit, a redelivery's count). */
    boolean durableChange;
    private long rangeFirst = -1;
    private long rangeLast;
    private short rangeCount;

    /** @param dirty told each offset whose stored state changed */
    AcquireScan(InFlightRecords records, LongConsumer dirty, int deliveryLimit, int maxInFlight) {
        this.records = records;
        this.dirty = dirty;
        this.deliveryLimit = deliveryLimit;
        this.maxInFlight = maxInFlight;
    }

    /**
     * Acquires from {@code read} (read at {@code readFrom}) for {@code lock}.
     *
     * @return the batches holding acquired records, by reference
     */
    BatchRecords scan(LogReadResult read, long readFrom, AcquisitionLock lock, int maxRecords, boolean recordLimit) {
        ByteBuffer[] buffers = read.batches().buffers();
        List<AbortedTxn> aborted = read.abortedTransactions();
        int firstBatch = -1;
        int lastBatch = -1;
        long expected = readFrom;
        batches:
        for (int i = 0; i < buffers.length; i++) {
            RecordBatch b = MemoryRecords.readableRecords(buffers[i]).batches().iterator().next();
            long base = b.baseOffset();
            long last = b.lastOffset();
            if (!archiveMissing(expected, base)) {
                break;
            }
            expected = Math.max(expected, last + 1);
            boolean never = b.isControlBatch() || (aborted != null && isAborted(b, aborted));
            boolean took = false;
            for (long o = Math.max(base, readFrom); o <= last; o++) {
                if (o < records.start()) {
                    continue;
                }
                if (o >= records.end()) {
                    if (records.size() >= maxInFlight || (!never && recordLimit && acquired >= maxRecords)) {
                        break batches;
                    }
                    records.append(never ? InFlightRecords.ARCHIVED : InFlightRecords.AVAILABLE, (short) 0, null);
                    if (never) {
                        dirty.accept(o);
                        continue;
                    }
                } else if (never) {
                    if (records.state(o) == InFlightRecords.AVAILABLE) {
                        records.set(o, InFlightRecords.ARCHIVED, records.count(o), null);
                        dirty.accept(o);
                    }
                    continue;
                }
                if (records.state(o) != InFlightRecords.AVAILABLE) {
                    continue;
                }
                if (recordLimit && acquired >= maxRecords) {
                    break batches;
                }
                short count = records.count(o);
                if (count >= deliveryLimit) {
                    records.set(o, InFlightRecords.ARCHIVED, count, null);
                    dirty.accept(o);
                    durableChange = true;
                    continue;
                }
                short delivery = (short) (count + 1);
                records.set(o, InFlightRecords.ACQUIRED, delivery, lock);
                lock.hold(o);
                acquired++;
                if (delivery > 1) {
                    // A redelivery: its count is made durable, so a restart keeps counting towards the limit.
                    dirty.accept(o);
                    durableChange = true;
                }
                addToRange(o, delivery);
                took = true;
            }
            if (took) {
                firstBatch = firstBatch < 0 ? i : firstBatch;
                lastBatch = i;
            }
            if (acquired >= maxRecords) {
                break;
            }
        }
        closeRange();
        return firstBatch < 0 ? BatchRecords.EMPTY : read.batches().slice(firstBatch, lastBatch + 1);
    }

    /** Archives offsets {@code from..to-1}, which no batch holds; false if the window is full. */
    private boolean archiveMissing(long from, long to) {
        for (long o = from; o < to; o++) {
            if (o < records.start()) {
                continue;
            }
            if (o >= records.end()) {
                if (records.size() >= maxInFlight) {
                    return false;
                }
                records.append(InFlightRecords.ARCHIVED, (short) 0, null);
                dirty.accept(o);
            } else if (records.state(o) == InFlightRecords.AVAILABLE) {
                records.set(o, InFlightRecords.ARCHIVED, records.count(o), null);
                dirty.accept(o);
            }
        }
        return true;
    }

    /**
     * Whether {@code b} belongs to an aborted transaction: one of its producer's that started at
     * or before it and whose ABORT marker comes after it.
     */
    static boolean isAborted(RecordBatch b, List<AbortedTxn> aborted) {
        if (!b.isTransactional()) {
            return false;
        }
        for (AbortedTxn a : aborted) {
            if (a.producerId() == b.producerId() && a.firstOffset() <= b.baseOffset()
                    && b.lastOffset() < a.lastOffset()) {
                return true;
            }
        }
        return false;
    }

    private void addToRange(long offset, short delivery) {
        if (rangeFirst >= 0 && (offset != rangeLast + 1 || delivery != rangeCount)) {
            closeRange();
        }
        if (rangeFirst < 0) {
            rangeFirst = offset;
            rangeCount = delivery;
        }
        rangeLast = offset;
    }

    private void closeRange() {
        if (rangeFirst >= 0) {
            ranges.add(new Acquired.AcquiredRange(rangeFirst, rangeLast, rangeCount));
            rangeFirst = -1;
        }
    }
}
