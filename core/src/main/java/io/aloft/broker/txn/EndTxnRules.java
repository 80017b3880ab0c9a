package io.aloft.broker.txn;

import io.aloft.broker.txn.TransactionRecord.Metadata;
import org.apache.kafka.common.protocol.Errors;

/**
 * Whether an EndTxn may end the transaction, or what it is answered instead, by the client's
 * transaction version. Kafka's rules (4.3); a pure function of the metadata and the request.
 * Stateless.
 */
final class EndTxnRules {

    /**
     * {@code error} null: the transaction is to be prepared (commit or abort as asked); otherwise the
     * answer, where NONE means "already done as asked" (a retry) and writes nothing.
     */
    record Decision(Errors error) {
        static final Decision PREPARE = new Decision(null);
    }

    private EndTxnRules() {
    }

    /**
     * Transactions v1 (KIP-98): the epoch never changes at EndTxn, so a retry carries the same epoch
     * and is recognized by the outcome already reached.
     */
    static Decision v1(Metadata m, long producerId, short epoch, boolean commit) {
        if (m.producerId() != producerId) {
            return new Decision(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (epoch != m.producerEpoch()) {
            return new Decision(Errors.PRODUCER_FENCED);
        }
        return switch (m.state()) {
            case ONGOING -> Decision.PREPARE;
            case COMPLETE_COMMIT -> answer(commit ? Errors.NONE : Errors.INVALID_TXN_STATE);
            case COMPLETE_ABORT -> answer(commit ? Errors.INVALID_TXN_STATE : Errors.NONE);
            case PREPARE_COMMIT -> answer(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> answer(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            // Ending a transaction that never started: a v1 client does not send that.
            case EMPTY, DEAD, PREPARE_EPOCH_FENCE -> answer(Errors.INVALID_TXN_STATE);
        };
    }

    /**
     * Transactions v2 (KIP-890): every EndTxn bumps the epoch, so the same epoch as the
     * coordinator's means "the next EndTxn", and a retry is recognized by the epoch one below the
     * coordinator's (or, after the epoch ran out and the producer id moved on, by the previous id at
     * the last epoch). An abort with no transaction open is allowed: it bumps the epoch and writes
     * no markers.
     */
    static Decision v2(Metadata m, long producerId, short epoch, boolean commit) {
        boolean retryAfterRotation = m.previousProducerId() == producerId && epoch == Short.MAX_VALUE - 1
                && m.producerEpoch() == 0;
        boolean retryAfterBump = m.producerEpoch() == epoch + 1;
        boolean validEpoch = switch (m.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> retryAfterBump;
            case COMPLETE_COMMIT, COMPLETE_ABORT -> retryAfterBump || retryAfterRotation || epoch == m.producerEpoch();
            default -> epoch == m.producerEpoch();
        };
        boolean retry = retryAfterBump || retryAfterRotation;
        if (m.producerId() != producerId && !retryAfterRotation) {
            return new Decision(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (!validEpoch) {
            return new Decision(Errors.PRODUCER_FENCED);
        }
        return switch (m.state()) {
            case ONGOING -> Decision.PREPARE;
            case COMPLETE_COMMIT -> commit ? answer(retry ? Errors.NONE : Errors.INVALID_TXN_STATE)
                    : retry ? answer(Errors.INVALID_TXN_STATE) : Decision.PREPARE;
            case COMPLETE_ABORT -> commit ? answer(Errors.INVALID_TXN_STATE)
                    : retry ? answer(Errors.NONE) : Decision.PREPARE;
            case PREPARE_COMMIT -> answer(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> answer(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case EMPTY -> commit ? answer(Errors.INVALID_TXN_STATE) : Decision.PREPARE;
            case DEAD, PREPARE_EPOCH_FENCE -> answer(Errors.INVALID_TXN_STATE);
        };
    }

    private static Decision answer(Errors error) {
        return new Decision(error);
    }
}
