package io.aloft.broker.txn;

import static io.aloft.broker.txn.TransactionRecord.NO_PRODUCER_EPOCH;
import static io.aloft.broker.txn.TransactionRecord.NO_PRODUCER_ID;

import io.aloft.broker.txn.TransactionRecord.Metadata;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The metadata a transactional id moves to, one method per kind of transition, as pure functions
 * of the metadata before (the checks that decide whether a transition is allowed are the shard's).
 * Kept apart so each epoch rule (KIP-98, KIP-360, KIP-890) is written once. Stateless.
 */
final class Transitions {

    private Transitions() {
    }

    /** A transactional id seen for the first time: a new producer id at epoch 0. */
    static Metadata created(long producerId, int timeoutMs, long nowMs) {
        return new Metadata(producerId, NO_PRODUCER_ID, NO_PRODUCER_ID, (short) 0, NO_PRODUCER_EPOCH, timeoutMs,
                TransactionState.EMPTY, Map.of(), nowMs, -1L, (short) 0);
    }

    /** InitProducerId on an idle id: {@code epoch}/{@code lastEpoch} as decided, no transaction open. */
    static Metadata initialized(Metadata m, short epoch, short lastEpoch, int timeoutMs, long nowMs) {
        return new Metadata(m.producerId(), m.previousProducerId(), NO_PRODUCER_ID, epoch, lastEpoch, timeoutMs,
                TransactionState.EMPTY, Map.of(), nowMs, -1L, m.clientTransactionVersion());
    }

    /**
     * InitProducerId when the epoch is exhausted: a new producer id at epoch 0. The old id is kept as
     * the previous one, so a retry of this request (KIP-360) is recognized.
     *
     * @param lastEpoch the old epoch if the client named it, else none
     */
    static Metadata rotated(Metadata m, long newProducerId, short lastEpoch, int timeoutMs, long nowMs) {
        return new Metadata(newProducerId, m.producerId(), NO_PRODUCER_ID, (short) 0, lastEpoch, timeoutMs,
                TransactionState.EMPTY, Map.of(), nowMs, -1L, m.clientTransactionVersion());
    }

    /** AddPartitionsToTxn / AddOffsetsToTxn: the transaction is Ongoing with these partitions too. */
    static Metadata partitionsAdded(Metadata m, Map<String, ? extends Collection<Integer>> partitions,
            short clientVersion, long nowMs) {
        boolean starting = m.state() != TransactionState.ONGOING;
        Map<String, List<Integer>> all = starting ? Metadata.union(Map.of(), partitions)
                : Metadata.union(m.partitions(), partitions);
        return new Metadata(m.producerId(), m.previousProducerId(), m.nextProducerId(), m.producerEpoch(),
                m.lastProducerEpoch(), m.timeoutMs(), TransactionState.ONGOING, all, nowMs,
                starting ? nowMs : m.startMs(), clientVersion);
    }

    /**
     * EndTxn, or an abort the coordinator starts itself: PrepareCommit or PrepareAbort, the decision
     * that markers then carry out. Epochs:
     * <ul>
     *   <li>v1 client, its own EndTxn: the epoch stays.</li>
     *   <li>v2 client (KIP-890), its own EndTxn: epoch + 1 (the previous one kept as last epoch); if
     *       the epoch is exhausted, {@code nextProducerId} is the id the producer moves to on
     *       completion.</li>
     *   <li>fence (InitProducerId on an open transaction, or its timeout), v1: epoch + 1, so the
     *       producer that left it open is fenced at the partitions by the markers' epoch.</li>
     *   <li>fence, v2: epoch + 2 (fence, then the per-transaction bump), so the fenced producer's
     *       retried EndTxn (epoch + 1 is what a retry looks like in v2) is refused rather than taken
     *       for a retry; an exhausted epoch moves to {@code nextProducerId} instead.</li>
     * </ul>
     *
     * @param nextProducerId a fresh id, needed only where the rules above say so (else ignored)
     * @throws IllegalStateException if a v1 epoch cannot be bumped (InitProducerId rotates ids before)
     */
    static Metadata prepared(Metadata m, boolean commit, boolean fence, short clientVersion, long nextProducerId,
            long nowMs) {
        short epoch = m.producerEpoch();
        short lastEpoch = m.lastProducerEpoch();
        long next = NO_PRODUCER_ID;
        boolean v2 = clientVersion >= 2;
        if (v2 && Metadata.epochExhausted(epoch)) {
            next = nextProducerId;
            lastEpoch = epoch;
            epoch = (short) (epoch + 1);
        } else if (v2) {
            lastEpoch = (short) (epoch + (fence ? 1 : 0));
            epoch = (short) (epoch + (fence ? 2 : 1));
        } else if (fence) {
            if (epoch == Short.MAX_VALUE) {
                throw new IllegalStateException("cannot fence producer " + m.producerId() + " at epoch " + epoch);
            }
            epoch = (short) (epoch + 1);
            lastEpoch = NO_PRODUCER_EPOCH;
        }
        return new Metadata(m.producerId(), m.previousProducerId(), next, epoch, lastEpoch, m.timeoutMs(),
                commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT, m.partitions(), nowMs,
                m.startMs(), clientVersion);
    }

    /** Whether {@link #prepared} needs a fresh producer id for these arguments. */
    static boolean preparingNeedsProducerId(Metadata m, short clientVersion) {
        return clientVersion >= 2 && Metadata.epochExhausted(m.producerEpoch());
    }

    /**
     * The markers are written: CompleteCommit or CompleteAbort, no partitions. A producer whose
     * epoch ran out (KIP-890) moves to its next producer id at epoch 0.
     */
    static Metadata completed(Metadata m, long nowMs) {
        TransactionState done = m.state() == TransactionState.PREPARE_COMMIT ? TransactionState.COMPLETE_COMMIT
                : TransactionState.COMPLETE_ABORT;
        if (m.nextProducerId() != NO_PRODUCER_ID) {
            return new Metadata(m.nextProducerId(), m.producerId(), NO_PRODUCER_ID, (short) 0, NO_PRODUCER_EPOCH,
                    m.timeoutMs(), done, Map.of(), nowMs, m.startMs(), m.clientTransactionVersion());
        }
        return new Metadata(m.producerId(), m.previousProducerId(), NO_PRODUCER_ID, m.producerEpoch(),
                m.lastProducerEpoch(), m.timeoutMs(), done, Map.of(), nowMs, m.startMs(), m.clientTransactionVersion());
    }

    /** The producer id and epoch a client goes on with once {@code prepared} completes. */
    static ProducerResult afterCompletion(Metadata prepared) {
        return prepared.nextProducerId() != NO_PRODUCER_ID ? ProducerResult.ok(prepared.nextProducerId(), (short) 0)
                : ProducerResult.ok(prepared.producerId(), prepared.producerEpoch());
    }
}
