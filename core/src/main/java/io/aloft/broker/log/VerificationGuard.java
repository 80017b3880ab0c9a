package io.aloft.broker.log;

/**
 * Proof that a transactional batch was checked with its transaction coordinator (KIP-890 part 1,
 * Kafka's {@code VerificationGuard}): {@link PartitionLog#startTransactionVerification} hands one out
 * before the coordinator is asked, and {@link PartitionLog#append(org.apache.kafka.common.record.internal.MemoryRecords,
 * VerificationGuard)} accepts the first batch of a transaction only with the guard the log still holds
 * for that producer. A marker for the producer drops the log's guard, so a batch verified before a
 * transaction ended and appended after it (a late write that would open a transaction nobody will
 * ever end: a hanging transaction) is refused with INVALID_TXN_STATE.
 *
 * <p>Compared by identity only. Immutable.
 */
public final class VerificationGuard {
    /**
     * No verification needed: the producer's transaction is already open in this partition at the
     * batch's epoch (only the first batch of a transaction is verified). Still refused if that
     * transaction has ended by the time the batch is appended.
     */
    public static final VerificationGuard SENTINEL = new VerificationGuard();

    VerificationGuard() {
    }

    @Override
    public String toString() {
        return this == SENTINEL ? "VerificationGuard(sentinel)" : "VerificationGuard@" + Integer.toHexString(hashCode());
    }
}
