package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.partition.TransactionCheck;
import io.aloft.broker.partition.TransactionVerifier;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The produce path's {@link TransactionVerifier}: another verifier's questions, and Kafka 4.3.1's
 * partition-leader retry of an add the coordinator refuses with CONCURRENT_TRANSACTIONS
 * ({@link #retryConcurrent}; ReplicaManager's "retry-add-partitions-to-txn": asked again every
 * {@code add.partitions.to.txn.retry.backoff.ms} until {@code add.partitions.to.txn.retry.backoff.max.ms}
 * have passed since the first answer; then the produce is answered CONCURRENT_TRANSACTIONS).
 *
 * <p>Why: a transaction-version-2 producer begins its next transaction as soon as EndTxn answers,
 * which is once Prepare* is durable; the markers and Complete* follow. So the next transaction's
 * first batches reach their leaders while the coordinator is still completing the last one, and,
 * refused at once, each would wait out the producer's {@code retry.backoff.ms} (100 ms by default)
 * instead of the few milliseconds the completion takes.
 *
 * <p>When this broker serves the transactional id, the next ask does not follow a fixed pause: it
 * goes as soon as the coordinator has completed the transaction
 * ({@link TransactionCoordinator#awaitCompletion}), within what is left of the bound. Another
 * broker's coordinator is asked again after {@code add.partitions.to.txn.retry.backoff.ms}.
 * Verifications (transaction version 1) are answered as they come, and TxnOffsetCommit's adds do
 * not ask for retries: Kafka retries neither.
 *
 * <p>Thread-safe (stateless beyond its collaborators); futures complete on a coordinator shard's
 * thread, the inter-broker client's or the timer's.
 */
public final class RetryingTransactionVerifier implements TransactionVerifier {

    private final TransactionVerifier verifier;
    private final TransactionCoordinator coordinator;
    private final CoordinatorTimer timer;
    private final long maxMs;
    private final long backoffMs;

    /**
     * @param verifier asks the coordinator, wherever it runs
     * @param coordinator this broker's, for waiting on a completion it serves
     * @param timer the clock of the bound, and the pauses before asking another broker again
     */
    public RetryingTransactionVerifier(TransactionVerifier verifier, TransactionCoordinator coordinator,
            CoordinatorTimer timer, TransactionCoordinatorConfig config) {
        this.verifier = verifier;
        this.coordinator = coordinator;
        this.timer = timer;
        this.maxMs = config.addPartitionsRetryBackoffMaxMs();
        this.backoffMs = config.addPartitionsRetryBackoffMs();
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Errors>> checkAll(String transactionalId, long producerId,
            short producerEpoch, Collection<TopicPartition> partitions, TransactionCheck check) {
        return verifier.checkAll(transactionalId, producerId, producerEpoch, partitions, check);
    }

    @Override
    public CompletableFuture<Errors> retryConcurrent(CompletableFuture<Errors> answer, String transactionalId,
            TransactionCheck check, Supplier<CompletableFuture<Errors>> askAgain) {
        if (check.verifyOnly() || maxMs == 0) {
            return answer;
        }
        return retried(answer, transactionalId, askAgain, timer.nowMs());
    }

    /** {@code answer}, or if it is CONCURRENT_TRANSACTIONS and time is left, the answer of asking again. */
    private CompletableFuture<Errors> retried(CompletableFuture<Errors> answer, String transactionalId,
            Supplier<CompletableFuture<Errors>> askAgain, long startMs) {
        return answer.thenCompose(error -> {
            long leftMs = maxMs - (timer.nowMs() - startMs);
            if (error != Errors.CONCURRENT_TRANSACTIONS || leftMs <= 0) {
                return CompletableFuture.completedFuture(error);
            }
            return pause(transactionalId, leftMs)
                    .thenCompose(v -> retried(askAgain.get(), transactionalId, askAgain, startMs));
        });
    }

    /** Until the transaction completes if this broker coordinates it, else the backoff; never past {@code leftMs}. */
    private CompletableFuture<Void> pause(String transactionalId, long leftMs) {
        if (coordinator.isServing(coordinator.partitionFor(transactionalId))) {
            return coordinator.awaitCompletion(transactionalId, leftMs);
        }
        CompletableFuture<Void> paused = new CompletableFuture<>();
        timer.schedule(Math.min(backoffMs, leftMs), () -> paused.complete(null));
        return paused;
    }
}
