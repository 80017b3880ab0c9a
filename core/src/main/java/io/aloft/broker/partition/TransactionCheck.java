package io.aloft.broker.partition;

import org.apache.kafka.common.protocol.Errors;

/**
 * What a partition leader does with the first batch of a transaction before appending it, by the
 * Produce version that carries it (Kafka's {@code TransactionSupportedOperation}, KIP-890):
 * Produce v12+ is sent only by transaction-version-2 clients, which never send AddPartitionsToTxn,
 * so the leader adds the partition to the transaction itself; older versions come from
 * transaction-version-1 clients, which added the partition themselves, so the leader only verifies
 * that they did. Immutable.
 */
public enum TransactionCheck {
    /** Produce v3-10: verify; TRANSACTION_ABORTABLE (unknown to these clients) is answered INVALID_TXN_STATE. */
    VERIFY_DEFAULT_ERROR,
    /** Produce v11: verify; TRANSACTION_ABORTABLE as it is. */
    VERIFY,
    /** Produce v12+: add the partition to the transaction (AddPartitionsToTxn v4+ with verifyOnly false). */
    ADD_PARTITION;

    /** The check for a Produce of {@code version}. */
    public static TransactionCheck forProduceVersion(short version) {
        return version >= 12 ? ADD_PARTITION : version >= 11 ? VERIFY : VERIFY_DEFAULT_ERROR;
    }

    /** Whether the coordinator is only asked (AddPartitionsToTxn's verifyOnly). */
    public boolean verifyOnly() {
        return this != ADD_PARTITION;
    }

    /**
     * The code a coordinator's answer for one partition becomes for the producer (Kafka's
     * AddPartitionsToTxnManager): PRODUCER_FENCED is INVALID_PRODUCER_EPOCH at the partition, and
     * clients before Produce v11 get INVALID_TXN_STATE for TRANSACTION_ABORTABLE. Then, as Kafka's
     * ReplicaManager does, the retriable coordinator errors become NOT_ENOUGH_REPLICAS, which old
     * clients retry without a metadata refresh; except CONCURRENT_TRANSACTIONS for an add, which
     * Kafka 4.3.1 answers as it is (transaction-version-2 clients know it; the leader has retried
     * it meanwhile).
     */
    public Errors produceError(Errors coordinatorError) {
        Errors e = coordinatorError;
        if (e == Errors.PRODUCER_FENCED) {
            e = Errors.INVALID_PRODUCER_EPOCH;
        } else if (e == Errors.TRANSACTION_ABORTABLE && this == VERIFY_DEFAULT_ERROR) {
            e = Errors.INVALID_TXN_STATE;
        }
        return switch (e) {
            case CONCURRENT_TRANSACTIONS -> verifyOnly() ? Errors.NOT_ENOUGH_REPLICAS : e;
            case NETWORK_EXCEPTION, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
                    -> Errors.NOT_ENOUGH_REPLICAS;
            default -> e;
        };
    }
}
