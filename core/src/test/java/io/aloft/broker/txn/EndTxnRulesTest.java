package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.aloft.broker.txn.TransactionRecord.Metadata;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class EndTxnRulesTest {

    private static Metadata at(TransactionState state, long producerId, long previous, int epoch) {
        return new Metadata(producerId, previous, -1L, (short) epoch, (short) -1, 60_000, state,
                state == TransactionState.ONGOING ? Map.of("t", List.of(0)) : Map.of(), 0L, 0L, (short) 1);
    }

    private static Errors v1(TransactionState s, boolean commit) {
        return EndTxnRules.v1(at(s, 10, -1, 5), 10, (short) 5, commit).error();
    }

    private static Errors v2(TransactionState s, int epoch, boolean commit) {
        return EndTxnRules.v2(at(s, 10, -1, 5), 10, (short) epoch, commit).error();
    }

    @Test
    void v1_stateMatrix_kafkasAnswers() {
        assertNull(v1(TransactionState.ONGOING, true));
        assertNull(v1(TransactionState.ONGOING, false));
        assertEquals(Errors.NONE, v1(TransactionState.COMPLETE_COMMIT, true));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.COMPLETE_COMMIT, false));
        assertEquals(Errors.NONE, v1(TransactionState.COMPLETE_ABORT, false));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.COMPLETE_ABORT, true));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, v1(TransactionState.PREPARE_COMMIT, true));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.PREPARE_COMMIT, false));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, v1(TransactionState.PREPARE_ABORT, false));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.PREPARE_ABORT, true));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.EMPTY, true));
        assertEquals(Errors.INVALID_TXN_STATE, v1(TransactionState.EMPTY, false));
    }

    @Test
    void v1_otherProducerOrEpoch_mappingThenFenced() {
        Metadata m = at(TransactionState.ONGOING, 10, -1, 5);
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, EndTxnRules.v1(m, 11, (short) 5, true).error());
        assertEquals(Errors.PRODUCER_FENCED, EndTxnRules.v1(m, 10, (short) 4, true).error());
        assertEquals(Errors.PRODUCER_FENCED, EndTxnRules.v1(m, 10, (short) 6, true).error());
    }

    @Test
    void v2_sameEpochIsTheNextEndTxn_epochBelowIsARetry() {
        assertNull(v2(TransactionState.ONGOING, 5, true));
        assertEquals(Errors.PRODUCER_FENCED, v2(TransactionState.ONGOING, 4, true));
        // Completed at epoch 5 after a bump from 4: the client's retry carries 4.
        assertEquals(Errors.NONE, v2(TransactionState.COMPLETE_COMMIT, 4, true));
        assertEquals(Errors.INVALID_TXN_STATE, v2(TransactionState.COMPLETE_COMMIT, 4, false));
        assertEquals(Errors.INVALID_TXN_STATE, v2(TransactionState.COMPLETE_COMMIT, 5, true));
        assertNull(v2(TransactionState.COMPLETE_COMMIT, 5, false), "an abort with nothing open bumps the epoch");
        assertEquals(Errors.NONE, v2(TransactionState.COMPLETE_ABORT, 4, false));
        assertNull(v2(TransactionState.COMPLETE_ABORT, 5, false));
        assertEquals(Errors.INVALID_TXN_STATE, v2(TransactionState.COMPLETE_ABORT, 5, true));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, v2(TransactionState.PREPARE_COMMIT, 4, true));
        assertEquals(Errors.PRODUCER_FENCED, v2(TransactionState.PREPARE_COMMIT, 5, true));
        assertNull(v2(TransactionState.EMPTY, 5, false));
        assertEquals(Errors.INVALID_TXN_STATE, v2(TransactionState.EMPTY, 5, true));
        assertEquals(Errors.PRODUCER_FENCED, v2(TransactionState.COMPLETE_COMMIT, 3, true));
    }

    @Test
    void v2_retryAfterProducerIdRotation_recognizedByPreviousIdAtLastEpoch() {
        Metadata rotated = at(TransactionState.COMPLETE_COMMIT, 20, 10, 0);
        assertEquals(Errors.NONE, EndTxnRules.v2(rotated, 10, (short) (Short.MAX_VALUE - 1), true).error());
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, EndTxnRules.v2(rotated, 10, (short) 5, true).error());
    }
}
