package io.aloft.broker.partition;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.log.VerificationGuard;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One writer per partition: a partition's appends reach its {@link PartitionLog} one at a time, in
 * the order they arrived here, even while the log is still opening. A partition with appends
 * waiting has a {@link Writer} holding them in a queue; whichever thread finds the writer idle
 * submits the queue (usually the connection's event loop, at once), and a writer waiting for its
 * log to open is resumed by the thread that finishes opening it. Each append waits only for the
 * previous one to be <em>submitted</em> to the log, not for it to be durable.
 *
 * <p>Appends that cannot reach the log are refused together with every append queued behind them
 * at that moment (they waited for the same open): an open that fails, and a log ready only after
 * an append's deadline, by which time the client has given up on the request (an idempotent
 * producer resends it or, past its delivery timeout, moves on with a new epoch; appending the
 * stale batch late duplicated it or broke the sequence, seen behind a 90 s open). Clients retry
 * them in order. Refused idempotent batches are remembered (see {@link #producerGap}).
 *
 * <p>Transactions (KIP-890): the first batch of a producer's transaction in a partition is checked
 * with the transaction's coordinator before it is appended ({@link TransactionVerifier}; later
 * batches find the transaction open in the log and are not). The check is a step of the queue like
 * waiting for the log to open: the writer stops at that batch, with every append queued behind it,
 * until the coordinator answers, so arrival order holds for every producer, the checked one
 * included (its next batches cannot overtake the first and break its sequence). The price is one
 * coordinator round trip per transaction and partition for the appends behind it; Kafka lets other
 * producers' batches pass instead, which a per-producer queue could do here too. The log's
 * {@link VerificationGuard} is taken before the coordinator is asked, so a transaction that ends
 * meanwhile (its marker voids the guard) is not reopened by the late batch.
 *
 * <p>A writer exists only while it has appends queued or refusals to remember, so a broker that
 * served many partitions over time keeps no entry for each.
 *
 * <p>Thread-safe. Each writer is guarded by its own monitor and nothing else is shared between
 * partitions on the append path (the writers' map is concurrent); {@code refusedByTopicId} is
 * guarded by itself (taken after a writer's monitor when both are), and looked at on the append
 * path only when it holds something. No monitor is held while a log is appended to or a future
 * completed.
 */
final class PartitionWriters {
    /** How long a refused producer batch holds back that producer's later ones (the Java client's delivery timeout). */
    static final long REFUSED_PRODUCER_MEMORY_MS = 120_000;
    /** Most topic-id partitions whose refusals are remembered at once (see {@link #refusedUnknownTopicId}). */
    static final int MAX_REFUSED_TOPIC_IDS = 10_000;
    /**
     * Longest wait for a transaction's coordinator before the batch is refused (retriable, as an
     * unreachable coordinator is): the partition's queue waits behind it.
     */
    static final long CHECK_TIMEOUT_MS = 30_000;

    private final Function<TopicPartition, CompletableFuture<PartitionLog>> logs;
    private final Function<String, UUID> topicIds;
    private final ConcurrentHashMap<TopicPartition, Writer> writers = new ConcurrentHashMap<>();
    /** Refusals of produces that named a topic id not known here yet, until it is (guarded by itself). */
    private final Map<TopicPartition, Refusals> refusedByTopicId = new HashMap<>();
    /** Whether refusedByTopicId may hold anything: read without its monitor on the append path. */
    private volatile boolean anyRefusedByTopicId;
    /** Checks transactions' first batches with their coordinator; null: not checked (transactions off). */
    private volatile TransactionVerifier verifier;
    /** Where a writer resumes once the coordinator answered (not the coordinator's thread). */
    private final Executor resume;

    /**
     * @param logs the log of a partition this broker leads, opening it if needed (fails with a
     *     {@link PartitionLogException} otherwise)
     * @param topicIds a topic's id by name, null when the topic is not known here
     */
    PartitionWriters(Function<TopicPartition, CompletableFuture<PartitionLog>> logs, Function<String, UUID> topicIds) {
        this(logs, topicIds, Runnable::run);
    }

    /** @param resume runs a writer again once a transaction's coordinator has answered */
    PartitionWriters(Function<TopicPartition, CompletableFuture<PartitionLog>> logs, Function<String, UUID> topicIds,
            Executor resume) {
        this.logs = logs;
        this.topicIds = topicIds;
        this.resume = resume;
    }

    /** Checks transactions' first batches with {@code verifier} from now on (see the class comment). */
    void verifyTransactionsWith(TransactionVerifier verifier) {
        this.verifier = verifier;
    }

    /**
     * One queued append; {@code transactionalId} null when it needs no transaction check. The
     * check's fields are set by the draining thread only.
     */
    private static final class Pending {
        final MemoryRecords records;
        /** Set for a write of another kind (a coordinator's batch or marker), with records empty. */
        final Function<PartitionLog, CompletableFuture<AppendResult>> write;
        final long deadlineNanos;
        final CompletableFuture<AppendResult> result;
        final String transactionalId;
        final TransactionCheck check;
        /** The log's guard to append with; null: the log checks no transaction. */
        VerificationGuard guard;
        /** The coordinator has answered ({@link #refusal} null: it agreed). */
        boolean checked;
        PartitionLogException refusal;

        Pending(MemoryRecords records, Function<PartitionLog, CompletableFuture<AppendResult>> write,
                long deadlineNanos, String transactionalId, TransactionCheck check) {
            this.records = records;
            this.write = write;
            this.deadlineNanos = deadlineNanos;
            this.result = new CompletableFuture<>();
            this.transactionalId = transactionalId;
            this.check = check;
        }

        MemoryRecords records() {
            return records;
        }

        Function<PartitionLog, CompletableFuture<AppendResult>> write() {
            return write;
        }

        long deadlineNanos() {
            return deadlineNanos;
        }

        CompletableFuture<AppendResult> result() {
            return result;
        }
    }

    /** Idempotent producers whose batch was refused before it reached the log: epoch, first sequence, when (nanos). */
    private static final class Refusals {
        final Map<Long, long[]> byProducer = new HashMap<>();

        void remember(MemoryRecords records, long now) {
            for (RecordBatch b : records.batches()) {
                if (!b.hasProducerId() || b.baseSequence() < 0) {
                    continue;
                }
                long[] refused = byProducer.get(b.producerId());
                if (refused == null || refused[0] != b.producerEpoch() || b.baseSequence() < refused[1]) {
                    byProducer.put(b.producerId(), new long[] {b.producerEpoch(), b.baseSequence(), now});
                }
            }
        }

        void expire(long now) {
            byProducer.values().removeIf(r -> now - r[2] > TimeUnit.MILLISECONDS.toNanos(REFUSED_PRODUCER_MEMORY_MS));
        }
    }

    /** One partition's writer. Guarded by itself. */
    private static final class Writer {
        final TopicPartition tp;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        final Refusals refusals = new Refusals();
        /** A thread is submitting the queue (or waiting for the log to open to do so). */
        boolean draining;
        /** Removed from the map: appenders that still found it take a new one. */
        boolean retired;

        Writer(TopicPartition tp) {
            this.tp = tp;
        }
    }

    /**
     * Queues an append to {@code tp} and, if no other thread is submitting that partition's
     * appends, submits the queue now. The result is the log's, or a refusal (see the class
     * comment): REQUEST_TIMED_OUT when the log is ready only after {@code deadlineNanos} (of
     * {@link System#nanoTime}; {@link Long#MAX_VALUE} for none).
     */
    CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos) {
        return append(tp, records, deadlineNanos, null, null);
    }

    /**
     * {@link #append(TopicPartition, MemoryRecords, long)} for a produce of {@code transactionalId}
     * (null: none): a transactional batch that would open a transaction here is checked with its
     * coordinator first, as {@code check} says, and refused with the code that answer becomes.
     */
    CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos,
            String transactionalId, TransactionCheck check) {
        return enqueue(tp, new Pending(records, null, deadlineNanos, transactionalId, check));
    }

    /**
     * Queues {@code write} (a call on the partition's log other than {@link PartitionLog#append}: a
     * coordinator's transactional batch or transaction marker) in order with the partition's other
     * appends, without a deadline.
     */
    CompletableFuture<AppendResult> write(TopicPartition tp,
            Function<PartitionLog, CompletableFuture<AppendResult>> write) {
        return enqueue(tp, new Pending(MemoryRecords.EMPTY, write, Long.MAX_VALUE, null, null));
    }

    private CompletableFuture<AppendResult> enqueue(TopicPartition tp, Pending pending) {
        while (true) {
            Writer w = writers.computeIfAbsent(tp, Writer::new);
            synchronized (w) {
                if (w.retired) {
                    continue;
                }
                adoptRefusalsByTopicId(w);
                w.queue.addLast(pending);
                if (w.draining) {
                    return pending.result;
                }
                w.draining = true;
            }
            drain(w, null);
            return pending.result;
        }
    }

    /**
     * Submits {@code w}'s queue in order until it is empty or waits for the log to open. The caller
     * set draining. {@code opened}: the open the queue waited for, when resumed by it (its outcome
     * decides for the appends that waited, even if it failed and a new open could start now).
     */
    private void drain(Writer w, CompletableFuture<PartitionLog> opened) {
        while (true) {
            Pending head;
            synchronized (w) {
                head = w.queue.peekFirst();
                if (settleIfEmpty(w)) {
                    return;
                }
            }
            CompletableFuture<PartitionLog> log;
            if (opened != null) {
                log = opened;
                opened = null;
            } else {
                try {
                    log = logs.apply(w.tp);
                } catch (RuntimeException e) {
                    log = CompletableFuture.failedFuture(e);
                }
            }
            if (!log.isDone()) {
                CompletableFuture<PartitionLog> awaited = log;
                log.whenComplete((l, e) -> drain(w, awaited)); // resumed by the thread that finishes the open
                return;
            }
            PartitionLog pl;
            try {
                pl = log.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                // An open that fails fails every append waiting for it: appending a producer's later batches
                // after a new open would leave a gap where the failed ones were (a producer the log does not
                // know yet is accepted at any sequence).
                refuseQueued(w, failure(w.tp, e), errorOf(e), "could not be opened");
                return;
            }
            if (!head.checked && head.deadlineNanos() != Long.MAX_VALUE
                    && System.nanoTime() - head.deadlineNanos() > 0) {
                refuseQueued(w, new PartitionLogException(Errors.REQUEST_TIMED_OUT, w.tp + " opened only after the "
                        + "produce request's timeout; its records were not appended"), Errors.REQUEST_TIMED_OUT,
                        "opened only after a produce request's timeout");
                return;
            }
            PartitionLogException gap;
            synchronized (w) {
                gap = producerGap(w, pl, head.records());
                if (gap != null) {
                    w.refusals.remember(head.records(), System.nanoTime());
                }
            }
            if (gap == null && !head.checked && startCheck(w, pl, head)) {
                return; // resumed once the coordinator answers, with the head still first in the queue
            }
            CompletableFuture<AppendResult> appended;
            if (gap != null) {
                appended = CompletableFuture.failedFuture(gap);
            } else if (head.refusal != null) {
                appended = CompletableFuture.failedFuture(head.refusal);
            } else {
                try {
                    // Submitted while this thread still drains: in order.
                    appended = head.write() != null ? head.write().apply(pl) : pl.append(head.records(), head.guard);
                } catch (RuntimeException e) {
                    appended = CompletableFuture.failedFuture(e); // a bug must not leave the partition's queue stuck
                }
            }
            boolean idle;
            synchronized (w) {
                w.queue.pollFirst();
                idle = settleIfEmpty(w);
            }
            // Completed once the queue moved on: a caller that sees its append done finds it settled here.
            appended.whenComplete((r, e) -> {
                if (e != null) {
                    head.result().completeExceptionally(e);
                } else {
                    head.result().complete(r);
                }
            });
            if (idle) {
                return;
            }
        }
    }

    /**
     * If {@code head} is a transactional batch whose transaction is not open in {@code pl} yet, takes
     * the log's guard and asks the coordinator, resuming the drain when it answers; whether it did
     * (this thread then stops draining, the writer stays marked as draining).
     */
    private boolean startCheck(Writer w, PartitionLog pl, Pending head) {
        TransactionVerifier v = verifier;
        RecordBatch batch = head.transactionalId == null || v == null ? null : firstTransactional(head.records());
        if (batch == null) {
            return false;
        }
        head.guard = pl.startTransactionVerification(batch.producerId(), batch.producerEpoch());
        if (head.guard == VerificationGuard.SENTINEL) {
            return false; // the transaction is open here: only its first batch is checked
        }
        head.checked = true;
        TransactionCheck check = head.check;
        CompletableFuture<Errors> answer;
        try {
            answer = v.check(head.transactionalId, batch.producerId(), batch.producerEpoch(), w.tp, check);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.orTimeout(CHECK_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenCompleteAsync((error, failure) -> {
            Errors coordinatorError = failure != null ? Errors.NETWORK_EXCEPTION : error;
            Errors produceError = check.produceError(coordinatorError);
            if (produceError != Errors.NONE) {
                head.refusal = new PartitionLogException(produceError, produceError == Errors.NOT_ENOUGH_REPLICAS
                        ? "Unable to verify the partition has been added to the transaction. Underlying error: "
                                + coordinatorError
                        : w.tp + ": transaction " + head.transactionalId + " check failed: " + coordinatorError);
                synchronized (w) {
                    w.refusals.remember(head.records(), System.nanoTime()); // its later batches wait for its retry
                }
            }
            drain(w, null);
        }, resume);
        return true;
    }

    /** The records' batch if it is transactional (Produce carries exactly one), else null. */
    private static RecordBatch firstTransactional(MemoryRecords records) {
        for (RecordBatch b : records.batches()) {
            return b.isTransactional() && b.hasProducerId() && !b.isControlBatch() ? b : null;
        }
        return null;
    }

    /**
     * If {@code w}'s queue is empty: this thread stops draining it and it is dropped if it has
     * nothing to remember; whether so. Called under its monitor by the draining thread.
     */
    private boolean settleIfEmpty(Writer w) {
        if (!w.queue.isEmpty()) {
            return false;
        }
        w.draining = false;
        retireIfIdle(w);
        return true;
    }

    /**
     * Refuses the append at the head of {@code w}'s queue with {@code headError} and every one
     * queued behind it now with {@code error} (they waited for the same open), remembering their
     * idempotent batches; the calling thread stops draining. Appends arriving after start afresh.
     */
    private void refuseQueued(Writer w, PartitionLogException headError, Errors error, String why) {
        List<Pending> refused;
        synchronized (w) {
            refused = new ArrayList<>(w.queue);
            w.queue.clear();
            long now = System.nanoTime();
            for (Pending p : refused) {
                w.refusals.remember(p.records(), now);
            }
            settleIfEmpty(w);
        }
        for (int i = 0; i < refused.size(); i++) {
            refused.get(i).result().completeExceptionally(i == 0 ? headError : new PartitionLogException(error,
                    w.tp + " " + why + " while this produce waited behind another; its records were not appended "
                    + "(retry)"));
        }
    }

    /** Drops {@code w} if nothing is queued, no thread drains it and it remembers no refusal. Called under its monitor. */
    private void retireIfIdle(Writer w) {
        if (!w.draining && w.queue.isEmpty() && w.refusals.byProducer.isEmpty()) {
            w.retired = true;
            writers.remove(w.tp, w);
        }
    }

    /**
     * Refuses (NOT_LEADER_OR_FOLLOWER, retriable) a batch of an idempotent producer the log does not
     * know yet while an earlier batch of it was refused here unappended: the log accepts an unknown
     * producer at any sequence (as Kafka's does), so appending the later batch first would leave the
     * earlier one's records out for good ("value 4 acknowledged at offset 0" when a new topic's first
     * batches reached this broker before its metadata did). The retry of the earlier batch clears
     * the way; so does the producer's next epoch, or {@link #REFUSED_PRODUCER_MEMORY_MS}. Called
     * under {@code w}'s monitor.
     */
    private static PartitionLogException producerGap(Writer w, PartitionLog log, MemoryRecords records) {
        Map<Long, long[]> refusedProducers = w.refusals.byProducer;
        if (refusedProducers.isEmpty()) {
            return null;
        }
        w.refusals.expire(System.nanoTime());
        for (RecordBatch b : records.batches()) {
            long[] refused = b.hasProducerId() ? refusedProducers.get(b.producerId()) : null;
            if (refused == null) {
                continue;
            }
            if (b.producerEpoch() != refused[0] || b.baseSequence() <= refused[1] || log.knowsProducer(b.producerId())) {
                refusedProducers.remove(b.producerId()); // the refused batch (or a new epoch) is here
                continue;
            }
            return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, w.tp + ": producer " + b.producerId()
                    + "'s batch at sequence " + refused[1] + " was refused here; sequence " + b.baseSequence()
                    + " waits for it (retry)");
        }
        return null;
    }

    /**
     * A produce this broker refused with UNKNOWN_TOPIC_ID (a topic id its metadata does not know yet:
     * Kafka 4's clients name topics by id): its idempotent batches count as refused unappended for
     * the partition, once the id is known (see {@link #producerGap}).
     */
    void refusedUnknownTopicId(UUID topicId, int partition, MemoryRecords records) {
        if (records == null) {
            return;
        }
        synchronized (refusedByTopicId) {
            long now = System.nanoTime();
            refusedByTopicId.values().removeIf(r -> {
                r.expire(now);
                return r.byProducer.isEmpty();
            });
            anyRefusedByTopicId = !refusedByTopicId.isEmpty();
            TopicPartition key = byTopicId(topicId, partition);
            if (!refusedByTopicId.containsKey(key) && refusedByTopicId.size() >= MAX_REFUSED_TOPIC_IDS) {
                return; // bad input (made-up topic ids) must not grow this: the guard is best effort beyond the cap
            }
            refusedByTopicId.computeIfAbsent(key, k -> new Refusals()).remember(records, now);
            anyRefusedByTopicId = !refusedByTopicId.isEmpty();
        }
    }

    /** Moves refusals remembered under {@code w}'s topic id into it. Called under its monitor. */
    private void adoptRefusalsByTopicId(Writer w) {
        if (!anyRefusedByTopicId) {
            return; // nearly always: no shared monitor on the produce path
        }
        synchronized (refusedByTopicId) {
            UUID id = topicIds.apply(w.tp.topic());
            Refusals byId = id == null ? null : refusedByTopicId.remove(byTopicId(id, w.tp.partition()));
            if (byId != null) {
                byId.byProducer.forEach(w.refusals.byProducer::putIfAbsent);
            }
            anyRefusedByTopicId = !refusedByTopicId.isEmpty();
        }
    }

    /** The key under which refusals of a topic id not known yet wait. */
    private static TopicPartition byTopicId(UUID topicId, int partition) {
        return new TopicPartition("#id:" + topicId, partition);
    }

    /** Drops expired refusals, and the writers left idle by that. Run by the periodic pass. */
    void forgetExpiredRefusals() {
        long now = System.nanoTime();
        for (Writer w : writers.values()) {
            synchronized (w) {
                w.refusals.expire(now);
                retireIfIdle(w);
            }
        }
    }

    /** How many partitions have a writer now (tests). */
    int writerCount() {
        return writers.size();
    }

    /** How many topic-id partitions have refusals remembered (tests). */
    int refusedTopicIdCount() {
        synchronized (refusedByTopicId) {
            return refusedByTopicId.size();
        }
    }

    private static PartitionLogException failure(TopicPartition tp, Throwable error) {
        Throwable cause = unwrap(error);
        return cause instanceof PartitionLogException ple ? ple
                : new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + " could not be opened: " + cause, cause);
    }

    private static Errors errorOf(Throwable error) {
        Throwable cause = unwrap(error);
        return cause instanceof PartitionLogException ple ? ple.error() : Errors.NOT_LEADER_OR_FOLLOWER;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
