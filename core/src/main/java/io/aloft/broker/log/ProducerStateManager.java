package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
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
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>();

        Entry(long producerId, short epoch, long lastTimestamp) {
            this.producerId = producerId;
            this.epoch = epoch;
            this.lastTimestamp = lastTimestamp;
        }

        Entry copy() {
            Entry e = new Entry(producerId, epoch, lastTimestamp);
            e.batches.addAll(batches);
            return e;
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

    /** Every producer remembered, for DescribeProducers. */
    java.util.List<ActiveProducer> activeProducers() {
        java.util.List<ActiveProducer> out = new java.util.ArrayList<>(producers.size());
        for (Entry e : producers.values()) {
            int lastSeq = e.batches.isEmpty() ? -1 : e.batches.peekLast().lastSeq();
            out.add(new ActiveProducer(e.producerId, e.epoch, lastSeq, e.lastTimestamp));
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

    /** Changes for one request, applied to the manager only by {@link #commit()}. */
    final class Update {
        private final Map<Long, Entry> changed = new HashMap<>();

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
         * @throws PartitionLogException INVALID_PRODUCER_EPOCH or OUT_OF_ORDER_SEQUENCE_NUMBER
         */
        void append(RecordBatch batch, long firstOffset, long lastOffset, long maxTimestamp, long logAppendTimeMs) {
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
                if (firstSeq != 0) {
                    throw new PartitionLogException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + pid
                            + " starts epoch " + epoch + " at sequence " + firstSeq + ", not 0");
                }
                e.epoch = epoch;
                e.batches.clear();
            } else if (!e.batches.isEmpty() && !inSequence(e.batches.peekLast().lastSeq(), firstSeq)) {
                throw new PartitionLogException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + pid + " epoch "
                        + epoch + " sent sequence " + firstSeq + " after " + e.batches.peekLast().lastSeq());
            }
            e.add(new BatchMetadata(firstSeq, batch.lastSequence(), firstOffset, lastOffset, maxTimestamp,
                    logAppendTimeMs));
        }

        void commit() {
            producers.putAll(changed);
        }
    }

    Update update() {
        return new Update();
    }

    private static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
    }

    /**
     * Rebuilds state from a stored batch (replay after a restart). Stored batches were checked when
     * appended, so nothing is refused here.
     */
    void replay(RecordBatch batch) {
        if (!batch.hasProducerId()) {
            return;
        }
        Entry e = producers.get(batch.producerId());
        if (e == null || batch.producerEpoch() > e.epoch) {
            e = new Entry(batch.producerId(), batch.producerEpoch(), batch.maxTimestamp());
            producers.put(batch.producerId(), e);
        }
        long logAppendTime = batch.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
                ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
        e.add(new BatchMetadata(batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset(),
                batch.maxTimestamp(), logAppendTime));
    }

    /** Forgets producers whose last batch's timestamp is older than {@code nowMs - expirationMs}. */
    void expire(long nowMs, long expirationMs) {
        producers.values().removeIf(e -> nowMs - e.lastTimestamp >= expirationMs);
    }

    /*
     * Snapshot layout (big-endian): producer count (int), then per producer: id (long), epoch
     * (short), last timestamp (long), batch count (byte), then per batch: first sequence (int),
     * last sequence (int), first offset (long), last offset (long), max timestamp (long), log
     * append time (long).
     */
    private static final int PRODUCER_BYTES = 8 + 2 + 8 + 1;
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8 + 8;

    int snapshotSize() {
        int size = 4;
        for (Entry e : producers.values()) {
            size += PRODUCER_BYTES + e.batches.size() * BATCH_BYTES;
        }
        return size;
    }

    void writeSnapshot(ByteBuffer out) {
        out.putInt(producers.size());
        for (Entry e : producers.values()) {
            out.putLong(e.producerId).putShort(e.epoch).putLong(e.lastTimestamp).put((byte) e.batches.size());
            for (BatchMetadata b : e.batches) {
                out.putInt(b.firstSeq()).putInt(b.lastSeq()).putLong(b.firstOffset()).putLong(b.lastOffset())
                        .putLong(b.maxTimestamp()).putLong(b.logAppendTimeMs());
            }
        }
    }

    /** Replaces all state with a snapshot written by {@link #writeSnapshot}. */
    void readSnapshot(ByteBuffer in) {
        producers.clear();
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            Entry e = new Entry(in.getLong(), in.getShort(), in.getLong());
            int batches = in.get();
            for (int j = 0; j < batches; j++) {
                e.batches.addLast(new BatchMetadata(in.getInt(), in.getInt(), in.getLong(), in.getLong(),
                        in.getLong(), in.getLong()));
            }
            producers.put(e.producerId, e);
        }
    }
}
