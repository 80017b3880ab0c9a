package io.aloft.broker.partition;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Asks a transaction's coordinator about partitions for a partition leader about to append the
 * transaction's first batch there (KIP-890): whether they are in the transaction, or (for
 * transaction-version-2 producers) to add them. Implemented next to the coordinator, wherever it
 * runs (this broker or another one). One question names every partition of one produce request
 * that needs it ({@link VerificationBatch}), so an add is one durable coordinator write however
 * many partitions the request touches, as Kafka's AddPartitionsToTxnManager batches them.
 *
 * <p>Implementations are thread-safe; the future may complete on any thread.
 */
public interface TransactionVerifier {

    /**
     * @return the coordinator's code for each of {@code partitions} (NONE: the batch may open the
     *     transaction there), before {@link TransactionCheck#produceError}; a partition missing from
     *     the answer counts as UNKNOWN_SERVER_ERROR. Completes exceptionally only when the
     *     coordinator could not be reached (answered as NETWORK_EXCEPTION would be).
     */
    CompletableFuture<Map<TopicPartition, Errors>> checkAll(String transactionalId, long producerId,
            short producerEpoch, Collection<TopicPartition> partitions, TransactionCheck check);

    /**
     * What a partition leader does when an add ({@link TransactionCheck#ADD_PARTITION}) is answered
     * CONCURRENT_TRANSACTIONS, the producer's previous transaction still completing: {@code answer},
     * or, while it is CONCURRENT_TRANSACTIONS and the implementation's bound allows, the answer of
     * {@code askAgain} once it is worth asking again. {@code askAgain} must take a fresh log guard
     * before it asks: the previous transaction's markers, written meanwhile, void the one held. Only
     * the produce path calls this (Kafka retries no other add). This default asks nothing again.
     */
    default CompletableFuture<Errors> retryConcurrent(CompletableFuture<Errors> answer, String transactionalId,
            TransactionCheck check, Supplier<CompletableFuture<Errors>> askAgain) {
        return answer;
    }

    /** {@link #checkAll} for one partition: its code. */
    default CompletableFuture<Errors> check(String transactionalId, long producerId, short producerEpoch,
            TopicPartition tp, TransactionCheck check) {
        return checkAll(transactionalId, producerId, producerEpoch, List.of(tp), check)
                .thenApply(answers -> answers.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR));
    }
}
