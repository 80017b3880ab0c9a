package io.aloft.broker.handler;

import io.aloft.broker.partition.TransactionCheck;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit's transaction check (KIP-890) by request version, and the one place its
 * coordinator's answers become the codes a TxnOffsetCommit is answered with.
 *
 * <p>Stateless.
 */
final class TxnOffsetCommitChecks {
    private TxnOffsetCommitChecks() {
    }

    /** The check of a TxnOffsetCommit of {@code version} (Kafka's {@code TransactionSupportedOperation}). */
    static TransactionCheck forVersion(short version) {
        return version >= 5 ? TransactionCheck.ADD_PARTITION
                : version == 4 ? TransactionCheck.VERIFY : TransactionCheck.VERIFY_DEFAULT_ERROR;
    }

    /**
     * What the coordinator's answer for the offsets partition becomes for a TxnOffsetCommit of
     * {@code version}, as Kafka 4.3.1 answers it: PRODUCER_FENCED is INVALID_PRODUCER_EPOCH (as for
     * a produce), and TRANSACTION_ABORTABLE, unknown before v4, is INVALID_TXN_STATE; then, as
     * Kafka's group coordinator maps any failed transactional write, an unreachable coordinator
     * (NETWORK_EXCEPTION) is COORDINATOR_LOAD_IN_PROGRESS, which old clients retry without looking
     * the coordinator up again. {@code null} (no answer) is NETWORK_EXCEPTION.
     */
    static Errors error(Errors coordinatorError, short version) {
        Errors e = coordinatorError == null ? Errors.NETWORK_EXCEPTION : coordinatorError;
        if (e == Errors.PRODUCER_FENCED) {
            e = Errors.INVALID_PRODUCER_EPOCH;
        } else if (e == Errors.TRANSACTION_ABORTABLE && forVersion(version) == TransactionCheck.VERIFY_DEFAULT_ERROR) {
            e = Errors.INVALID_TXN_STATE;
        }
        return switch (e) {
            case NETWORK_EXCEPTION -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            default -> e;
        };
    }
}
