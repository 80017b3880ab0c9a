package io.aloft.broker.txn;

import static io.aloft.broker.txn.TxnTestKit.V2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.aloft.broker.partition.TransactionCheck;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * A transaction-version-2 producer's next transaction begins while the coordinator still completes
 * the last one (EndTxn answers once PrepareCommit is durable; markers and CompleteCommit follow), so
 * the leaders' adds for its first batches are answered CONCURRENT_TRANSACTIONS. As Kafka 4.3.1's
 * leaders do, {@link RetryingTransactionVerifier} asks again within
 * {@code add.partitions.to.txn.retry.backoff.max.ms} instead of answering the produce with an error
 * (which costs the producer its retry.backoff.ms): at once when a local coordinator has completed
 * the transaction, after {@code add.partitions.to.txn.retry.backoff.ms} at another broker's. Time is
 * the kit's manual timer; nothing here waits for real time.
 */
class ConcurrentTransactionsRetryTest {

    private final TxnTestKit kit = new TxnTestKit();

    /** The verifier of a broker whose own coordinator is the kit's. */
    private RetryingTransactionVerifier retrier(TxnTestKit k) {
        return new RetryingTransactionVerifier((id, pid, epoch, tps, check) -> {
            throw new AssertionError("asks go through askAgain here");
        }, k.coordinator, k.timer, k.config);
    }

    /** Adds t-1 to {@code p}'s transaction at the coordinator, counting the asks. */
    private Supplier<CompletableFuture<Errors>> adds(ProducerResult p, List<Errors> asked) {
        return () -> kit.coordinator.addPartitionsToTxn("tx", p.producerId(), p.producerEpoch(),
                Map.of("t", List.of(1)), V2).thenApply(e -> {
                    asked.add(e);
                    return e;
                });
    }

    /** A committed first transaction whose markers the test holds; the producer's next id and epoch. */
    private ProducerResult committingWithMarkersHeld() {
        ProducerResult p = kit.init("tx");
        assertEquals(Errors.NONE, kit.add("tx", p, V2, "t", 0));
        kit.markers.hold = true;
        ProducerResult next = kit.end("tx", p, true, V2);
        assertEquals(Errors.NONE, next.error());
        assertEquals("PrepareCommit", kit.state("tx"));
        return next;
    }

    @Test
    void addDuringCompletion_askedAgainOnceTheTransactionCompletes_answeredNone() {
        ProducerResult next = committingWithMarkersHeld();
        List<Errors> asked = new ArrayList<>();
        Supplier<CompletableFuture<Errors>> add = adds(next, asked);
        CompletableFuture<Errors> answer = retrier(kit).retryConcurrent(add.get(), "tx",
                TransactionCheck.ADD_PARTITION, add);
        assertEquals(List.of(Errors.CONCURRENT_TRANSACTIONS), asked);
        assertFalse(answer.isDone(), "waits for the completion, not answered CONCURRENT_TRANSACTIONS");
        kit.markers.last().future().complete(null); // markers written: CompleteCommit, then the waiting add
        assertEquals(Errors.NONE, answer.join());
        assertEquals(List.of(Errors.CONCURRENT_TRANSACTIONS, Errors.NONE), asked);
        assertEquals("Ongoing", kit.state("tx"));
    }

    @Test
    void completionSlowerThanTheBound_answeredConcurrentTransactions() {
        ProducerResult next = committingWithMarkersHeld();
        List<Errors> asked = new ArrayList<>();
        Supplier<CompletableFuture<Errors>> add = adds(next, asked);
        CompletableFuture<Errors> answer = retrier(kit).retryConcurrent(add.get(), "tx",
                TransactionCheck.ADD_PARTITION, add);
        kit.timer.advance(kit.config.addPartitionsRetryBackoffMaxMs() - 1);
        assertFalse(answer.isDone());
        kit.timer.advance(1);
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, answer.join(), "the producer retries it (Kafka answers so)");
        assertEquals(List.of(Errors.CONCURRENT_TRANSACTIONS, Errors.CONCURRENT_TRANSACTIONS), asked);
        // The wait that timed out left nothing behind: the completion wakes no one, and a new add succeeds.
        kit.markers.last().future().complete(null);
        assertEquals("CompleteCommit", kit.state("tx"));
        assertEquals(Errors.NONE, add.get().join());
    }

    @Test
    void coordinatorUnloadedWhileWaiting_askedAgain_answeredNotCoordinator() {
        ProducerResult next = committingWithMarkersHeld();
        List<Errors> asked = new ArrayList<>();
        Supplier<CompletableFuture<Errors>> add = adds(next, asked);
        CompletableFuture<Errors> answer = retrier(kit).retryConcurrent(add.get(), "tx",
                TransactionCheck.ADD_PARTITION, add);
        kit.coordinator.unloadPartition(kit.coordinator.partitionFor("tx"));
        assertEquals(Errors.NOT_COORDINATOR, answer.join());
    }

    @Test
    void verificationsAndOtherErrors_notAskedAgain() {
        int[] asks = new int[1];
        Supplier<CompletableFuture<Errors>> never = () -> {
            asks[0]++;
            return CompletableFuture.completedFuture(Errors.NONE);
        };
        RetryingTransactionVerifier retrier = retrier(kit);
        CompletableFuture<Errors> concurrent = CompletableFuture.completedFuture(Errors.CONCURRENT_TRANSACTIONS);
        assertSame(concurrent, retrier.retryConcurrent(concurrent, "tx", TransactionCheck.VERIFY, never));
        assertSame(concurrent, retrier.retryConcurrent(concurrent, "tx", TransactionCheck.VERIFY_DEFAULT_ERROR, never));
        assertEquals(Errors.PRODUCER_FENCED, retrier.retryConcurrent(CompletableFuture.completedFuture(
                Errors.PRODUCER_FENCED), "tx", TransactionCheck.ADD_PARTITION, never).join());
        assertEquals(0, asks[0]);
    }

    @Test
    void anotherBrokersCoordinator_askedAgainAfterTheBackoff() {
        // This broker does not serve "tx": its coordinator is asked again after the backoff, not woken.
        kit.coordinator.unloadPartition(kit.coordinator.partitionFor("tx"));
        Queue<Errors> answers = new ArrayDeque<>(List.of(Errors.CONCURRENT_TRANSACTIONS, Errors.NONE));
        int[] asks = new int[1];
        Supplier<CompletableFuture<Errors>> remote = () -> {
            asks[0]++;
            return CompletableFuture.completedFuture(answers.remove());
        };
        CompletableFuture<Errors> answer = retrier(kit).retryConcurrent(remote.get(), "tx",
                TransactionCheck.ADD_PARTITION, remote);
        kit.timer.advance(kit.config.addPartitionsRetryBackoffMs() - 1);
        assertEquals(1, asks[0]);
        kit.timer.advance(1);
        assertEquals(Errors.NONE, answer.join());
        assertEquals(2, asks[0]);
    }

    @Test
    void boundZero_answeredAtOnce() {
        TxnTestKit none = new TxnTestKit(Map.of(TransactionCoordinatorConfig.ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS_CONFIG,
                0));
        CompletableFuture<Errors> concurrent = CompletableFuture.completedFuture(Errors.CONCURRENT_TRANSACTIONS);
        assertSame(concurrent, retrier(none).retryConcurrent(concurrent, "tx", TransactionCheck.ADD_PARTITION,
                () -> {
                    throw new AssertionError("not asked again");
                }));
    }

    @Test
    void checkAll_isTheWrappedVerifiers() {
        Map<TopicPartition, Errors> answer = Map.of(new TopicPartition("t", 0), Errors.NONE);
        RetryingTransactionVerifier v = new RetryingTransactionVerifier((String id, long pid, short epoch,
                Collection<TopicPartition> tps, TransactionCheck check) -> CompletableFuture.completedFuture(answer),
                kit.coordinator, kit.timer, kit.config);
        assertEquals(answer, v.checkAll("tx", 1, (short) 0, answer.keySet(), TransactionCheck.ADD_PARTITION).join());
    }
}
