package io.aloft.broker.partition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The coordinator questions of one produce request (KIP-890), sent together: while the request's
 * appends are being queued, each partition whose first transactional batch needs its coordinator
 * registers here instead of asking on its own; {@link #close} then asks once per transaction
 * (transactional id, producer id and epoch, and kind of check) for all of them, so N partitions
 * cost one coordinator round trip and, for an add, one durable {@code __transaction_state} write
 * (Kafka's ReplicaManager asks for a request's partitions together too). A check that starts after
 * {@link #close} (its partition's log was still opening, say) asks on its own.
 *
 * <p>Thread-safe (guarded by its monitor): partitions register from whichever thread drains their
 * writer; the answers are handed out on the thread that completes the verifier's future, after
 * the monitor is released.
 */
public final class VerificationBatch implements AutoCloseable {

    private record Question(TransactionVerifier verifier, String transactionalId, long producerId,
            short producerEpoch, TransactionCheck check) {
    }

    /** Partitions waiting to be asked, by question, in registration order. Null once closed. */
    private Map<Question, Map<TopicPartition, CompletableFuture<Errors>>> waiting = new LinkedHashMap<>();

    /**
     * Registers {@code tp} for the question, to be asked at {@link #close}; its answer's future, or
     * null if this batch was already sent (or {@code tp} is already registered): ask on your own.
     */
    synchronized CompletableFuture<Errors> register(TransactionVerifier verifier, String transactionalId,
            long producerId, short producerEpoch, TopicPartition tp, TransactionCheck check) {
        if (waiting == null) {
            return null;
        }
        Map<TopicPartition, CompletableFuture<Errors>> partitions = waiting.computeIfAbsent(
                new Question(verifier, transactionalId, producerId, producerEpoch, check), q -> new LinkedHashMap<>());
        if (partitions.containsKey(tp)) {
            return null;
        }
        CompletableFuture<Errors> answer = new CompletableFuture<>();
        partitions.put(tp, answer);
        return answer;
    }

    /** Asks every registered question, one call per question; later registrations ask on their own. */
    @Override
    public void close() {
        Map<Question, Map<TopicPartition, CompletableFuture<Errors>>> questions;
        synchronized (this) {
            questions = waiting;
            waiting = null;
        }
        if (questions == null) {
            return;
        }
        questions.forEach((q, partitions) -> {
            List<TopicPartition> tps = new ArrayList<>(partitions.keySet());
            CompletableFuture<Map<TopicPartition, Errors>> answers;
            try {
                answers = q.verifier().checkAll(q.transactionalId(), q.producerId(), q.producerEpoch(), tps, q.check());
            } catch (RuntimeException e) {
                answers = CompletableFuture.failedFuture(e); // a bug must not leave the partitions' batches waiting
            }
            answers.whenComplete((byPartition, failure) -> partitions.forEach((tp, answer) -> {
                if (failure != null) {
                    answer.completeExceptionally(failure);
                } else {
                    answer.complete(byPartition.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR));
                }
            }));
        });
    }
}
