package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * Checks the batches of a produce request the way Kafka's log does before it assigns offsets, and
 * rewrites a checked batch in place once its offsets are known.
 *
 * <p>Stateless; the batches it returns are views on the caller's buffer.
 */
final class BatchValidator {
    private BatchValidator() {
    }

    /**
     * A batch that passed validation.
     *
     * @param batch view on the request's buffer, rewritten by {@link #assign}
     * @param bytes the batch's bytes (a view sharing the request's buffer)
     * @param count offsets the batch takes (lastOffsetDelta + 1)
     * @param maxTimestamp largest record timestamp, or -1 if no record has one
     */
    record Checked(MutableRecordBatch batch, ByteBuffer bytes, int count, long maxTimestamp) {
    }

    /**
     * Validates every batch; nothing is modified.
     *
     * @throws PartitionLogException with the Kafka error for the first problem found
     */
    static List<Checked> validate(MemoryRecords records, LogConfig config, long nowMs) {
        List<Checked> out = new ArrayList<>();
        ByteBuffer buffer = records.buffer();
        int position = buffer.position();
        try {
            for (MutableRecordBatch batch : records.batches()) {
                int size = batch.sizeInBytes();
                ByteBuffer bytes = buffer.duplicate();
                bytes.position(position).limit(position + size);
                out.add(validateBatch(batch, bytes.slice(), out.size(), config, nowMs));
                position += size;
            }
        } catch (CorruptRecordException e) {
            throw new PartitionLogException(Errors.CORRUPT_MESSAGE, "corrupt batch: " + e.getMessage(), e);
        }
        // The batch iterator stops quietly at a truncated tail; a producer never sends one.
        if (position != buffer.limit()) {
            throw new PartitionLogException(Errors.CORRUPT_MESSAGE, (buffer.limit() - position)
                    + " bytes after the last whole batch");
        }
        return out;
    }

    private static Checked validateBatch(MutableRecordBatch batch, ByteBuffer bytes, int index, LogConfig config,
            long nowMs) {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            // Kafka 4's answer: message format v0/v1 is gone (KIP-724).
            throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + " has magic "
                    + batch.magic() + "; only magic 2 is accepted");
        }
        try {
            batch.compressionType();
        } catch (IllegalArgumentException e) {
            // Kafka answers UNKNOWN_SERVER_ERROR: not retriable, and the batch can never be read.
            throw new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, "batch " + index + ": " + e.getMessage(), e);
        }
        if (batch.baseOffset() != 0) {
            throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + " has base offset "
                    + batch.baseOffset() + "; a producer sends 0");
        }
        if (batch.sizeInBytes() > config.maxMessageBytes()) {
            throw new PartitionLogException(Errors.MESSAGE_TOO_LARGE, "batch " + index + " is " + batch.sizeInBytes()
                    + " bytes, above " + LogConfig.MAX_MESSAGE_BYTES_CONFIG + "=" + config.maxMessageBytes());
        }
        try {
            batch.ensureValid();
        } catch (CorruptRecordException e) {
            throw new PartitionLogException(Errors.CORRUPT_MESSAGE, "batch " + index + ": " + e.getMessage(), e);
        }
        if (batch.isControlBatch()) {
            throw new PartitionLogException(Errors.INVALID_RECORD, "clients may not write control batches");
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + " of producer "
                    + batch.producerId() + " has no sequence number");
        }
        if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            throw new PartitionLogException(Errors.INVALID_TIMESTAMP, "batch " + index
                    + " claims LogAppendTime; only the broker sets it");
        }
        long maxTimestamp;
        try {
            maxTimestamp = checkRecords(batch, index, config, nowMs);
        } catch (InvalidRecordException e) {
            throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + ": " + e.getMessage(), e);
        } catch (CorruptRecordException e) {
            throw new PartitionLogException(Errors.CORRUPT_MESSAGE, "batch " + index + ": " + e.getMessage(), e);
        } catch (KafkaException e) {
            // Records that cannot be decompressed or parsed although the CRC matched.
            throw new PartitionLogException(Errors.CORRUPT_MESSAGE, "batch " + index + ": " + e.getMessage(), e);
        }
        return new Checked(batch, bytes, (int) (batch.lastOffset() - batch.baseOffset() + 1), maxTimestamp);
    }

    /**
     * Checks offsets, count, timestamps and (in a compacted topic) keys of every record; returns the
     * largest timestamp.
     */
    private static long checkRecords(MutableRecordBatch batch, int index, LogConfig config, long nowMs) {
        boolean checkTimestamps = config.timestampType() == TimestampType.CREATE_TIME;
        boolean needKeys = config.compact();
        long expected = batch.baseOffset();
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        try (CloseableIterator<Record> it = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (it.hasNext()) {
                Record r = it.next();
                if (r.offset() != expected) {
                    throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + ": record at offset "
                            + r.offset() + " where " + expected + " was expected");
                }
                if (needKeys && !r.hasKey()) {
                    // Kafka's answer and wording: compaction goes by key, so a keyless record could never be kept.
                    int recordIndex = (int) (expected - batch.baseOffset());
                    throw new PartitionLogException(Errors.INVALID_RECORD, "Compacted topic cannot accept message "
                            + "without key (record " + recordIndex + " of batch " + index + ")", null, recordIndex);
                }
                long ts = r.timestamp();
                if (checkTimestamps && ts != RecordBatch.NO_TIMESTAMP) {
                    // Subtractions, not sums: the bounds default to Long.MAX_VALUE.
                    if (nowMs - ts > config.timestampBeforeMaxMs() || ts - nowMs > config.timestampAfterMaxMs()) {
                        throw new PartitionLogException(Errors.INVALID_TIMESTAMP, "batch " + index + ": timestamp "
                                + ts + " of offset delta " + (expected - batch.baseOffset()) + " is outside ["
                                + LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + ", "
                                + LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + "] around now (" + nowMs + ")");
                    }
                }
                maxTimestamp = Math.max(maxTimestamp, ts);
                expected++;
            }
        }
        long count = expected - batch.baseOffset();
        Integer declared = batch.countOrNull();
        if (count == 0 || count != batch.lastOffset() - batch.baseOffset() + 1
                || (declared != null && declared != count)) {
            throw new PartitionLogException(Errors.INVALID_RECORD, "batch " + index + " holds " + count
                    + " records but declares " + declared + " and last offset delta "
                    + (batch.lastOffset() - batch.baseOffset()));
        }
        return maxTimestamp;
    }

    /**
     * A transaction marker of {@code producerId} (a control batch holding one COMMIT or ABORT
     * record), built here rather than sent by a client, ready for {@link #assign}.
     */
    static Checked marker(long producerId, short producerEpoch, int coordinatorEpoch, boolean commit, long nowMs) {
        EndTransactionMarker marker = new EndTransactionMarker(
                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch);
        MemoryRecords records = MemoryRecords.withEndTransactionMarker(0L, nowMs, RecordBatch.NO_PARTITION_LEADER_EPOCH,
                producerId, producerEpoch, marker);
        MutableRecordBatch batch = records.batches().iterator().next();
        return new Checked(batch, records.buffer(), 1, nowMs);
    }

    /**
     * Rewrites a checked batch in place: its base offset, partition leader epoch and, for
     * LogAppendTime, its timestamp (the CRC is recomputed when the covered bytes change).
     */
    static void assign(Checked c, long baseOffset, int leaderEpoch, TimestampType type, long nowMs) {
        MutableRecordBatch batch = c.batch();
        batch.setLastOffset(baseOffset + c.count() - 1);
        batch.setPartitionLeaderEpoch(leaderEpoch);
        if (type == TimestampType.LOG_APPEND_TIME) {
            batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, nowMs);
        } else {
            batch.setMaxTimestamp(TimestampType.CREATE_TIME, c.maxTimestamp());
        }
    }
}
