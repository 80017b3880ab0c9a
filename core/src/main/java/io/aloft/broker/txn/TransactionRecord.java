package io.aloft.broker.txn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One change of a transactional id, as appended to its partition of {@code __transaction_state}
 * and replayed on load: the id's whole metadata after the change ({@link Metadata}), or null for a
 * tombstone (the id expired). A later record for an id replaces an earlier one, so the topic is
 * compacted by transactional id, as Kafka's is. Immutable.
 */
public record TransactionRecord(String transactionalId, Metadata metadata) {

    /** No producer id (Kafka's RecordBatch.NO_PRODUCER_ID). */
    public static final long NO_PRODUCER_ID = -1L;
    /** No producer epoch (Kafka's RecordBatch.NO_PRODUCER_EPOCH). */
    public static final short NO_PRODUCER_EPOCH = -1;

    public TransactionRecord {
        Objects.requireNonNull(transactionalId, "transactionalId");
    }

    /** A tombstone: {@code transactionalId} is forgotten. */
    public static TransactionRecord tombstone(String transactionalId) {
        return new TransactionRecord(transactionalId, null);
    }

    /**
     * A transactional id's metadata (Kafka's TransactionLogValue, in Aloft's own layout).
     *
     * @param producerId the producer id the producer uses now
     * @param previousProducerId the one before, after a producer id rotation (so a retried request
     *     of the old id is recognized), else {@link #NO_PRODUCER_ID}
     * @param nextProducerId KIP-890: the id the producer moves to when this transaction completes,
     *     because ending it exhausted the epoch; else {@link #NO_PRODUCER_ID}
     * @param producerEpoch the current epoch; older ones are fenced
     * @param lastProducerEpoch the epoch before the last bump (a retried bump is recognized by it),
     *     or {@link #NO_PRODUCER_EPOCH}
     * @param timeoutMs the producer's transaction.timeout.ms
     * @param state where the transaction stands
     * @param partitions the partitions the transaction wrote to, topic to partitions, sorted
     * @param lastUpdateMs when this metadata last changed
     * @param startMs when the current transaction started (its first AddPartitions), or -1
     * @param clientTransactionVersion 1 (KIP-98 transactions) or 2 (KIP-890: the epoch is bumped
     *     at every EndTxn); 0 before a client said which
     */
    public record Metadata(long producerId, long previousProducerId, long nextProducerId, short producerEpoch,
                           short lastProducerEpoch, int timeoutMs, TransactionState state,
                           Map<String, List<Integer>> partitions, long lastUpdateMs, long startMs,
                           short clientTransactionVersion) {

        public Metadata {
            Objects.requireNonNull(state, "state");
            partitions = sorted(partitions);
        }

        /** Whether the epoch cannot be bumped twice more (Kafka's isEpochExhausted: Short.MAX_VALUE - 1 or more). */
        public static boolean epochExhausted(short epoch) {
            return epoch >= Short.MAX_VALUE - 1;
        }

        /** Whether {@code topic}/{@code partition} is in the transaction. */
        public boolean contains(String topic, int partition) {
            List<Integer> ps = partitions.get(topic);
            return ps != null && ps.contains(partition);
        }

        /** The number of partitions in the transaction. */
        public int partitionCount() {
            return partitions.values().stream().mapToInt(List::size).sum();
        }

        /** KIP-890: whether the producer bumps its epoch at every EndTxn. */
        public boolean epochBumpPerTransaction() {
            return clientTransactionVersion >= 2;
        }

        Metadata withState(TransactionState newState, long nowMs) {
            return new Metadata(producerId, previousProducerId, nextProducerId, producerEpoch, lastProducerEpoch,
                    timeoutMs, newState, partitions, nowMs, startMs, clientTransactionVersion);
        }

        Metadata withPartitions(Map<String, List<Integer>> newPartitions) {
            return new Metadata(producerId, previousProducerId, nextProducerId, producerEpoch, lastProducerEpoch,
                    timeoutMs, state, newPartitions, lastUpdateMs, startMs, clientTransactionVersion);
        }

        private static Map<String, List<Integer>> sorted(Map<String, ? extends Collection<Integer>> in) {
            TreeMap<String, List<Integer>> out = new TreeMap<>();
            if (in != null) {
                in.forEach((topic, ps) -> {
                    if (!ps.isEmpty()) {
                        out.put(Objects.requireNonNull(topic, "topic"), List.copyOf(new TreeSet<>(ps)));
                    }
                });
            }
            return Collections.unmodifiableMap(out);
        }

        /** {@code a} and {@code b} together. */
        static Map<String, List<Integer>> union(Map<String, List<Integer>> a, Map<String, ? extends Collection<Integer>> b) {
            TreeMap<String, List<Integer>> out = new TreeMap<>();
            a.forEach((t, ps) -> out.put(t, new ArrayList<>(ps)));
            b.forEach((t, ps) -> out.computeIfAbsent(t, x -> new ArrayList<>()).addAll(ps));
            return out;
        }
    }
}
