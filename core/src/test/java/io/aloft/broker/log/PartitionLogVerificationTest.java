package io.aloft.broker.log;

import static io.aloft.broker.log.LogFixture.assertFails;
import static io.aloft.broker.log.LogFixture.get;
import static io.aloft.broker.log.LogFixture.idempotent;
import static io.aloft.broker.log.LogFixture.transactional;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The partition's half of KIP-890 part 1 (Kafka's verification guards): a transactional batch that
 * would open a transaction is appended only with the guard handed out before its coordinator was
 * asked; once the transaction is open later batches need none (the sentinel: the "verified" cache
 * that spares them the round trip); a marker voids a guard, so a late batch cannot reopen a
 * transaction that ended (a hanging transaction).
 */
class PartitionLogVerificationTest extends WithLogFixture {
    private static final long PID = 7;
    private static final short EPOCH = 3;

    @Test
    void firstBatch_needsTheGuard_laterBatchesTheSentinel() throws Exception {
        PartitionLog log = fx.open();
        VerificationGuard guard = log.startTransactionVerification(PID, EPOCH);
        assertNotSame(VerificationGuard.SENTINEL, guard);
        assertSame(guard, log.startTransactionVerification(PID, EPOCH), "one guard per producer and epoch");
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(PID, EPOCH, 0, 2), VerificationGuard.SENTINEL));
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(PID, EPOCH, 0, 2), new VerificationGuard()));
        assertEquals(0, get(log.append(transactional(PID, EPOCH, 0, 2), guard)).baseOffset());
        // Open now: nothing to verify for the rest of the transaction.
        assertSame(VerificationGuard.SENTINEL, log.startTransactionVerification(PID, EPOCH));
        assertEquals(2, get(log.append(transactional(PID, EPOCH, 2, 1), VerificationGuard.SENTINEL)).baseOffset());
    }

    @Test
    void markerAfterVerification_voidsTheGuard_lateBatchRefused() throws Exception {
        PartitionLog log = fx.open();
        VerificationGuard guard = log.startTransactionVerification(PID, EPOCH);
        get(log.appendMarker(PID, EPOCH, 0, false, (short) 1)); // the transaction was aborted meanwhile
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(PID, EPOCH, 0, 2), guard));
        assertEquals(1, log.highWatermark(), "only the marker");
    }

    @Test
    void sentinelTakenWhileOpen_markerMeanwhile_lateBatchRefused() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(PID, EPOCH, 0, 1), log.startTransactionVerification(PID, EPOCH)));
        VerificationGuard sentinel = log.startTransactionVerification(PID, EPOCH);
        assertSame(VerificationGuard.SENTINEL, sentinel);
        get(log.appendMarker(PID, EPOCH, 0, true, (short) 1));
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(PID, EPOCH, 1, 1), sentinel));
    }

    @Test
    void coordinatorAppend_withTheGuard_markerMeanwhile_refused() throws Exception {
        // A group coordinator's TxnOffsetCommit: its own batch of the producer, with the guard taken
        // before the transaction coordinator was asked.
        PartitionLog log = fx.open();
        VerificationGuard guard = log.startTransactionVerification(PID, EPOCH);
        get(log.appendMarker(PID, EPOCH, 0, true, (short) 1)); // the transaction committed meanwhile
        assertFails(Errors.INVALID_TXN_STATE, log.appendAsCoordinator(transactional(PID, EPOCH, 0, 1), guard));
        assertEquals(1, log.highWatermark(), "only the marker");
        VerificationGuard next = log.startTransactionVerification(PID, EPOCH);
        assertEquals(1, get(log.appendAsCoordinator(transactional(PID, EPOCH, 0, 1), next)).baseOffset());
        assertSame(VerificationGuard.SENTINEL, log.startTransactionVerification(PID, EPOCH));
    }

    @Test
    void newEpoch_needsANewGuard() throws Exception {
        PartitionLog log = fx.open();
        VerificationGuard old = log.startTransactionVerification(PID, EPOCH);
        VerificationGuard next = log.startTransactionVerification(PID, (short) (EPOCH + 1));
        assertNotSame(old, next);
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(PID, (short) (EPOCH + 1), 0, 1), old));
        get(log.append(transactional(PID, (short) (EPOCH + 1), 0, 1), next));
    }

    @Test
    void withoutGuard_noVerification_andPlainBatchesNeverNeedOne() throws Exception {
        PartitionLog log = fx.open();
        get(log.append(transactional(PID, EPOCH, 0, 1))); // the broker's own writers, transactions off
        get(log.append(idempotent(PID + 1, (short) 0, 0, 1), VerificationGuard.SENTINEL));
        assertEquals(2, log.highWatermark());
    }
}
