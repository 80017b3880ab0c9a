package io.aloft.broker.handler;

import org.apache.kafka.common.protocol.Errors;

/**
 * KIP-588: PRODUCER_FENCED exists for a transactional producer only from the request versions that
 * introduced it (InitProducerId v4, AddPartitionsToTxn v2, AddOffsetsToTxn v2, EndTxn v2,
 * TxnOffsetCommit v3); an older client is told INVALID_PRODUCER_EPOCH instead, as Kafka does, since
 * it would not know the newer code. The coordinator answers PRODUCER_FENCED; the handlers map it
 * here, at the version boundary.
 *
 * <p>Stateless.
 */
final class ProducerFencedErrors {
    static final short INIT_PRODUCER_ID = 4;
    static final short ADD_PARTITIONS_TO_TXN = 2;
    static final short ADD_OFFSETS_TO_TXN = 2;
    static final short END_TXN = 2;

    private ProducerFencedErrors() {
    }

    /** {@code error}, or INVALID_PRODUCER_EPOCH for PRODUCER_FENCED below {@code firstVersion}. */
    static Errors forVersion(Errors error, short version, short firstVersion) {
        return error == Errors.PRODUCER_FENCED && version < firstVersion ? Errors.INVALID_PRODUCER_EPOCH : error;
    }
}
