package io.aloft.broker.txn;

import org.apache.kafka.common.protocol.Errors;

/**
 * What InitProducerId and EndTxn answer: an error code and, on success, the producer id and epoch
 * the producer goes on with (EndTxn carries them from v5, KIP-890). Immutable.
 */
public record ProducerResult(Errors error, long producerId, short producerEpoch) {

    static ProducerResult ok(long producerId, short producerEpoch) {
        return new ProducerResult(Errors.NONE, producerId, producerEpoch);
    }

    static ProducerResult error(Errors error) {
        return new ProducerResult(error, TransactionRecord.NO_PRODUCER_ID, TransactionRecord.NO_PRODUCER_EPOCH);
    }
}
