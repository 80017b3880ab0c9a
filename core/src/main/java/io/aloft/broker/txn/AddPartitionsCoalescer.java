package io.aloft.broker.txn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group commit of AddPartitionsToTxn per transactional id: while one add of an id is being
 * written to {@code __transaction_state}, later adds of the same id wait, and when it is durable
 * they go as one write (one per producer id, epoch and client version they name, nearly always
 * one). Transaction-version-2 producers add partitions as their batches reach the partitions'
 * leaders, often several leaders at once; each would cost its own durable write otherwise. A
 * waiting add also no longer answers before the write that added its partitions is durable.
 * Every outcome the shard gives depends on the producer and the transaction's state, not on which
 * partitions are named, so the joined answer is each add's own.
 *
 * <p>Thread-safe: {@link #inFlight} is guarded by this object's monitor; writes are started and
 * futures completed outside it (on the caller's thread or a coordinator shard's).
 */
final class AddPartitionsCoalescer {

    /** Writes one add (the shard's {@code addPartitions}); its future never fails. */
    @FunctionalInterface
    interface Writer {
        CompletableFuture<Errors> write(String transactionalId, long producerId, short producerEpoch,
                Map<String, ? extends Collection<Integer>> partitions, short clientVersion);
    }

    private record Producer(long producerId, short producerEpoch, short clientVersion) {
    }

    /** Adds waiting to be written together: their partitions and their callers' futures. */
    private static final class Joined {
        final Map<String, Set<Integer>> partitions = new LinkedHashMap<>();
        final List<CompletableFuture<Errors>> callers = new ArrayList<>();

        void join(Map<String, ? extends Collection<Integer>> more, CompletableFuture<Errors> caller) {
            more.forEach((topic, ps) -> partitions.computeIfAbsent(topic, t -> new LinkedHashSet<>()).addAll(ps));
            callers.add(caller);
        }
    }

    private final Writer writer;
    /** An id present has a write in flight; its value: the adds waiting for that write, by producer. */
    private final Map<String, Map<Producer, Joined>> inFlight = new HashMap<>();

    AddPartitionsCoalescer(Writer writer) {
        this.writer = writer;
    }

    /** Adds {@code partitions} now, or with the id's next write if one is in flight; completes with its code. */
    CompletableFuture<Errors> add(String transactionalId, long producerId, short producerEpoch,
            Map<String, ? extends Collection<Integer>> partitions, short clientVersion) {
        CompletableFuture<Errors> caller = new CompletableFuture<>();
        Map<Producer, Joined> now = new LinkedHashMap<>();
        synchronized (this) {
            Map<Producer, Joined> waiting = inFlight.get(transactionalId);
            if (waiting != null) {
                waiting.computeIfAbsent(new Producer(producerId, producerEpoch, clientVersion), p -> new Joined())
                        .join(partitions, caller);
                return caller;
            }
            inFlight.put(transactionalId, new LinkedHashMap<>());
        }
        now.computeIfAbsent(new Producer(producerId, producerEpoch, clientVersion), p -> new Joined())
                .join(partitions, caller);
        write(transactionalId, now);
        return caller;
    }

    /** Writes each group of {@code joined}; once all are done, the adds that waited meanwhile. */
    private void write(String transactionalId, Map<Producer, Joined> joined) {
        List<CompletableFuture<Errors>> writes = new ArrayList<>();
        joined.forEach((p, j) -> {
            CompletableFuture<Errors> written;
            try {
                written = writer.write(transactionalId, p.producerId(), p.producerEpoch(), j.partitions,
                        p.clientVersion());
            } catch (RuntimeException e) {
                written = CompletableFuture.completedFuture(TransactionCoordinator.errorFor(e));
            }
            writes.add(written.whenComplete((error, failure) -> j.callers.forEach(c -> {
                if (failure != null) {
                    c.complete(TransactionCoordinator.errorFor(failure));
                } else {
                    c.complete(error);
                }
            })));
        });
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                .whenComplete((v, failure) -> next(transactionalId));
    }

    private void next(String transactionalId) {
        Map<Producer, Joined> waiting;
        synchronized (this) {
            waiting = inFlight.get(transactionalId);
            if (waiting.isEmpty()) {
                inFlight.remove(transactionalId);
                return;
            }
            inFlight.put(transactionalId, new LinkedHashMap<>());
        }
        write(transactionalId, waiting);
    }

    /** How many ids have a write in flight (tests). */
    synchronized int inFlightCount() {
        return inFlight.size();
    }
}
