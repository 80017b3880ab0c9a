package io.aloft.broker.handler;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the Produce protocol itself requires of a partition's records, before the log sees them,
 * with the codes Apache Kafka 4.3 answers for the same bytes (the conformance test sends both
 * brokers each case): exactly one batch, of magic 2 (INVALID_RECORD; magic 0/1 message sets are
 * gone since Kafka 4.0), zstd only from v7 (UNSUPPORTED_COMPRESSION_TYPE), a compression codec that
 * exists (Kafka answers an unknown one with UNKNOWN_SERVER_ERROR, which no client retries), and a
 * transactional batch only with a transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
 * While transactions are off no transactional producer id is ever issued here, so a transactional
 * batch with an id is refused with INVALID_PRODUCER_ID_MAPPING, as Kafka answers a producer id its
 * coordinator does not know. While they are on it passes here; the partition's writer checks the
 * first batch of each transaction with its coordinator (KIP-890) before the log opens the
 * transaction at it.
 *
 * <p>Stateless.
 */
final class ProduceRecordsCheck {
    /** First Produce version that may carry zstd (KIP-110). */
    static final short FIRST_ZSTD_VERSION = 7;

    /** A refusal: the partition's error code and message. */
    record Refusal(Errors error, String message) {
    }

    private ProduceRecordsCheck() {
    }

    /** Null if the records may go to the log, else why not. */
    static Refusal check(short version, MemoryRecords records, String transactionalId, boolean transactions) {
        if (records == null || records.sizeInBytes() == 0) {
            return new Refusal(Errors.INVALID_RECORD, "no record batch");
        }
        RecordBatch only = null;
        for (RecordBatch batch : records.batches()) {
            if (only != null) {
                return new Refusal(Errors.INVALID_RECORD, "Produce v" + version
                        + " carries exactly one record batch per partition");
            }
            only = batch;
        }
        if (only == null) {
            return new Refusal(Errors.INVALID_RECORD, "no whole record batch in " + records.sizeInBytes() + " bytes");
        }
        if (only.magic() != RecordBatch.MAGIC_VALUE_V2) {
            return new Refusal(Errors.INVALID_RECORD, "Produce v" + version + " carries magic 2 batches only, not magic "
                    + only.magic());
        }
        CompressionType compression;
        try {
            compression = only.compressionType();
        } catch (IllegalArgumentException e) {
            return new Refusal(Errors.UNKNOWN_SERVER_ERROR, "unknown compression codec: " + e.getMessage());
        }
        if (compression == CompressionType.ZSTD && version < FIRST_ZSTD_VERSION) {
            return new Refusal(Errors.UNSUPPORTED_COMPRESSION_TYPE, "zstd needs Produce v" + FIRST_ZSTD_VERSION
                    + " or later, not v" + version);
        }
        if (only.isTransactional() && !(transactions && transactionalId != null)) {
            return transactionalId == null
                    ? new Refusal(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                            "a transactional batch needs a transactional id")
                    : new Refusal(Errors.INVALID_PRODUCER_ID_MAPPING, "producer id " + only.producerId()
                            + " is not a transactional producer here: transactions are not supported yet");
        }
        return null;
    }
}
