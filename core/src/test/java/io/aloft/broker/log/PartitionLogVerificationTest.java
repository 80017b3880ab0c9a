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

    /**
     * Transaction version 2 (Kafka 4.3.1's UnifiedLog.updateProducers): a producer's transaction at
     * epoch E ends with a marker at E + 1, the epoch its next transaction runs at, and that one's
     * first batch is verified while the marker is still on its way. The marker keeps the guard of
     * a batch added at its own epoch; a version-1 guard it voids as any marker does.
     */
    @Test
    void version2Guard_markerEndingThePreviousTransaction_keepsIt_version1GuardVoided() throws Exception {
        PartitionLog log = fx.open();
        short previous = (short) (EPOCH - 1);
        get(log.append(transactional(PID, previous, 0, 1), log.startTransactionVerification(PID, previous, true)));
        VerificationGuard next = log.startTransactionVerification(PID, EPOCH, true);
        get(log.appendMarker(PID, EPOCH, 0, true, (short) 2)); // the previous transaction's commit
        assertEquals(2, get(log.append(transactional(PID, EPOCH, 0, 1), next)).baseOffset());

        long other = PID + 1;
        get(log.append(transactional(other, previous, 0, 1), log.startTransactionVerification(other, previous)));
        VerificationGuard v1 = log.startTransactionVerification(other, EPOCH, false);
        get(log.appendMarker(other, EPOCH, 0, true, (short) 2));
        assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(other, EPOCH, 0, 1), v1));
    }

    /** A version-2 guard is still voided by the marker that ends its own transaction (epoch + 1, or + 2 fenced). */
    @Test
    void version2Guard_markerEndingItsOwnTransaction_voidsIt() throws Exception {
        PartitionLog log = fx.open();
        for (int bump : new int[] {1, 2}) {
            long pid = PID + bump;
            VerificationGuard guard = log.startTransactionVerification(pid, EPOCH, true);
            get(log.appendMarker(pid, (short) (EPOCH + bump), 0, false, (short) 2));
            assertFails(Errors.INVALID_TXN_STATE, log.append(transactional(pid, EPOCH, 0, 1), guard));
        }
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
