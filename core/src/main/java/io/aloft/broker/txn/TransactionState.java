package io.aloft.broker.txn;

import java.util.Locale;

/**
 * Where one transactional id's transaction stands, with Kafka's names (what DescribeTransactions
 * and ListTransactions report) and the code each state has in {@code __transaction_state} values.
 * The codes are written explicitly, never taken from {@link #ordinal()}, so reordering this enum
 * cannot change what stored records mean. Immutable.
 *
 * <pre>
 *   Empty / CompleteCommit / CompleteAbort --AddPartitions--> Ongoing
 *   Ongoing --EndTxn(commit)--> PrepareCommit --markers written--> CompleteCommit
 *   Ongoing --EndTxn(abort), InitProducerId, timeout--> PrepareAbort --markers written--> CompleteAbort
 *   Empty / CompleteCommit / CompleteAbort --InitProducerId--> Empty (epoch bumped or new producer id)
 * </pre>
 *
 * Kafka passes through PrepareEpochFence (in memory only) while it fences a producer, and Dead
 * while it removes an expired id. Aloft applies a transition's record as soon as it is written, so
 * it fences with one PrepareAbort record carrying the bumped epoch and expires with one tombstone:
 * neither state is ever held. They exist here so stored codes and reported names stay Kafka's.
 */
public enum TransactionState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final byte code;
    private final String kafkaName;

    TransactionState(int code, String kafkaName) {
        this.code = (byte) code;
        this.kafkaName = kafkaName;
    }

    /** The code stored in {@code __transaction_state}. */
    public byte code() {
        return code;
    }

    /** Kafka's name, as DescribeTransactions and ListTransactions report it. */
    public String kafkaName() {
        return kafkaName;
    }

    /** The state of a stored code, or null if no state has it. */
    static TransactionState ofCode(byte code) {
        for (TransactionState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }

    /** The state Kafka names {@code name} (ListTransactions state filters), or null. */
    public static TransactionState ofKafkaName(String name) {
        for (TransactionState s : values()) {
            if (s.kafkaName.equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** Whether a transaction is being completed: markers are being written. */
    public boolean preparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** Whether no transaction is open: a new one may start, the producer may re-initialize. */
    public boolean idle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    @Override
    public String toString() {
        return kafkaName.toLowerCase(Locale.ROOT);
    }
}
