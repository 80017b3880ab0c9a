package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.partition.TransactionCheck;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * TxnOffsetCommit's transaction check by version and its codes where the oracle test
 * (TxnOffsetCommitVerificationOracleTest) cannot reach them: an unreachable or moving coordinator,
 * a partition led elsewhere. The answers Kafka 4.3.1 gives for the reachable cases are compared
 * there.
 */
class TxnOffsetCommitChecksTest {

    @Test
    void forVersion_v0to3VerifyWithTheOldCode_v4Verifies_v5Adds() {
        for (short v = 0; v <= 3; v++) {
            assertEquals(TransactionCheck.VERIFY_DEFAULT_ERROR, TxnOffsetCommitChecks.forVersion(v), "v" + v);
        }
        assertEquals(TransactionCheck.VERIFY, TxnOffsetCommitChecks.forVersion((short) 4));
        assertEquals(TransactionCheck.ADD_PARTITION, TxnOffsetCommitChecks.forVersion((short) 5));
    }

    @Test
    void error_abortableOnlyFromV4_fencedAsInvalidEpoch() {
        assertEquals(Errors.INVALID_TXN_STATE, TxnOffsetCommitChecks.error(Errors.TRANSACTION_ABORTABLE, (short) 3));
        assertEquals(Errors.TRANSACTION_ABORTABLE, TxnOffsetCommitChecks.error(Errors.TRANSACTION_ABORTABLE,
                (short) 4));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, TxnOffsetCommitChecks.error(Errors.PRODUCER_FENCED, (short) 5));
        assertEquals(Errors.NONE, TxnOffsetCommitChecks.error(Errors.NONE, (short) 4));
    }

    @Test
    void error_unreachableOrMovingCoordinator_retriableCodesOfTheGroupCoordinator() {
        // No answer (timed out, connection lost) is retried without a new coordinator lookup.
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, TxnOffsetCommitChecks.error(null, (short) 4));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, TxnOffsetCommitChecks.error(Errors.NETWORK_EXCEPTION,
                (short) 3));
        // The group's partition not led here: the client looks the group coordinator up again.
        assertEquals(Errors.NOT_COORDINATOR, TxnOffsetCommitChecks.error(Errors.NOT_LEADER_OR_FOLLOWER, (short) 4));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, TxnOffsetCommitChecks.error(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                (short) 4));
        // The transaction coordinator's own retriable codes as they are (unlike a produce's NOT_ENOUGH_REPLICAS).
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, TxnOffsetCommitChecks.error(Errors.CONCURRENT_TRANSACTIONS,
                (short) 4));
        assertEquals(Errors.NOT_COORDINATOR, TxnOffsetCommitChecks.error(Errors.NOT_COORDINATOR, (short) 5));
    }
}
