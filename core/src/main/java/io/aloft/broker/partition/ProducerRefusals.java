package io.aloft.broker.partition;

import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Idempotent producers whose batch was refused at one partition before it reached the log: epoch,
 * first sequence refused, and when (nanos), so that their later batches are not appended first
 * ({@link #gap}). Part of {@link PartitionWriters}.
 *
 * <p>Not thread-safe: guarded by the monitor of the writer (or map) that holds it.
 */
final class ProducerRefusals {
    /** How long a refused producer batch holds back that producer's later ones (the Java client's delivery timeout). */
    static final long REFUSED_PRODUCER_MEMORY_MS = 120_000;

    /** By producer id: epoch, first sequence refused, when (nanos). */
    final Map<Long, long[]> byProducer = new HashMap<>();

    void remember(MemoryRecords records, long now) {
        for (RecordBatch b : records.batches()) {
            if (!b.hasProducerId() || b.baseSequence() < 0) {
                continue;
            }
            long[] refused = byProducer.get(b.producerId());
            if (refused == null || refused[0] != b.producerEpoch() || b.baseSequence() < refused[1]) {
                byProducer.put(b.producerId(), new long[] {b.producerEpoch(), b.baseSequence(), now});
            }
        }
    }

    void expire(long now) {
        byProducer.values().removeIf(r -> now - r[2] > TimeUnit.MILLISECONDS.toNanos(REFUSED_PRODUCER_MEMORY_MS));
    }

    boolean isEmpty() {
        return byProducer.isEmpty();
    }

    /**
     * The refusal (NOT_LEADER_OR_FOLLOWER, retriable) of a batch of an idempotent producer the log
     * does not know yet while an earlier batch of it was refused here unappended, else null: the log
     * accepts an unknown producer at any sequence (as Kafka's does), so appending the later batch
     * first would leave the earlier one's records out for good ("value 4 acknowledged at offset 0"
     * when a new topic's first batches reached this broker before its metadata did). The retry of
     * the earlier batch clears the way; so does the producer's next epoch, or
     * {@link #REFUSED_PRODUCER_MEMORY_MS}.
     */
    PartitionLogException gap(TopicPartition tp, PartitionLog log, MemoryRecords records) {
        if (byProducer.isEmpty()) {
            return null;
        }
        expire(System.nanoTime());
        for (RecordBatch b : records.batches()) {
            long[] refused = b.hasProducerId() ? byProducer.get(b.producerId()) : null;
            if (refused == null) {
                continue;
            }
            if (b.producerEpoch() != refused[0] || b.baseSequence() <= refused[1] || log.knowsProducer(b.producerId())) {
                byProducer.remove(b.producerId()); // the refused batch (or a new epoch) is here
                continue;
            }
            return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + ": producer " + b.producerId()
                    + "'s batch at sequence " + refused[1] + " was refused here; sequence " + b.baseSequence()
                    + " waits for it (retry)");
        }
        return null;
    }
}
