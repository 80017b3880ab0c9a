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
 * them in order. Refused idempotent batches are remembered (see {@link ProducerRefusals#gap}).
 *
 * <p>Transactions (KIP-890): the first batch of a producer's transaction in a partition is checked
 * with the transaction's coordinator before it is appended ({@link TransactionVerifier}; later
 * batches find the transaction open in the log and are not). Only that producer waits, as in Kafka:
 * the batch is set aside in the writer's {@code held} line for its producer, every later batch of
 * the same producer joins that line behind it (its sequence order must hold), and the queue goes on
 * with other producers' appends. When the coordinator answers, the producer's line goes back to the
 * front of the queue ({@code resumed}), in order. The checks of one produce request's partitions
 * are asked together when the request passes a {@link VerificationBatch} (one coordinator write
 * for all of them). The log's {@link VerificationGuard} is taken before the coordinator is asked,
 * so a transaction that ends meanwhile (its marker, which does not wait for held batches, as in
 * Kafka, voids the guard) is not reopened by the late batch. An add the coordinator refuses
 * because the producer's previous transaction is still completing may be asked again, as the
 * verifier decides ({@link TransactionVerifier#retryConcurrent}), each time with the guard taken
 * anew; the producer's line stays held meanwhile.
 *
 * <p>A writer exists only while it has appends queued or held, or refusals to remember, so a
 * broker that served many partitions over time keeps no entry for each.
 *
 * <p>Thread-safe. Each writer is guarded by its own monitor and nothing else is shared between
 * partitions on the append path (the writers' map is concurrent); {@code refusedByTopicId} is
 * guarded by itself (taken after a writer's monitor when both are), and looked at on the append
 * path only when it holds something. No monitor is held while a log is appended to, a coordinator
 * asked or a future completed.
 */
final class PartitionWriters {
    /** Most topic-id partitions whose refusals are remembered at once (see {@link #refusedUnknownTopicId}). */
    static final int MAX_REFUSED_TOPIC_IDS = 10_000;
    /**
     * Longest wait for a transaction's coordinator before the batch is refused (retriable, as an
     * unreachable coordinator is): the producer's later batches in the partition wait behind it.
     */
    static final long CHECK_TIMEOUT_MS = 30_000;

    private final Function<TopicPartition, CompletableFuture<PartitionLog>> logs;
    private final Function<String, UUID> topicIds;
    private final ConcurrentHashMap<TopicPartition, Writer> writers = new ConcurrentHashMap<>();
    /** Refusals of produces that named a topic id not known here yet, until it is (guarded by itself). */
    private final Map<TopicPartition, ProducerRefusals> refusedByTopicId = new HashMap<>();
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
     * check's fields are set by the draining thread, except {@link #refusal} and, when the check is
     * asked again, {@link #guard}: set before the answer's callback releases the producer's line
     * under the writer's monitor, which the draining thread takes before it reads them.
     */
    private static final class Pending {
        final MemoryRecords records;
        /** Set for a write of another kind (a coordinator's batch or marker), with records empty. */
        final Function<PartitionLog, CompletableFuture<AppendResult>> write;
        final long deadlineNanos;
        final CompletableFuture<AppendResult> result;
        final String transactionalId;
        final TransactionCheck check;
        /** Where the check is asked with the rest of its produce request; null: on its own. */
        final VerificationBatch batch;
        /** The producer whose line this append keeps its place in; -1: none (never held). */
        final long producerId;
        /** The log's guard to append with; null: the log checks no transaction. */
        VerificationGuard guard;
        /** The coordinator has answered ({@link #refusal} null: it agreed). */
        boolean checked;
        PartitionLogException refusal;

        Pending(MemoryRecords records, Function<PartitionLog, CompletableFuture<AppendResult>> write,
                long deadlineNanos, String transactionalId, TransactionCheck check, VerificationBatch batch) {
            this.records = records;
            this.write = write;
            this.deadlineNanos = deadlineNanos;
            this.result = new CompletableFuture<>();
            this.transactionalId = transactionalId;
            this.check = check;
            this.batch = batch;
            long pid = -1;
            for (RecordBatch b : records.batches()) {
                pid = b.hasProducerId() ? b.producerId() : -1;
                break; // Produce carries one batch per partition
            }
            this.producerId = pid;
        }
    }

    /** One partition's writer. Guarded by itself. */
    private static final class Writer {
        final TopicPartition tp;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        /** Producers' lines whose first append is being checked, by producer id (see the class comment). */
        final Map<Long, ArrayDeque<Pending>> held = new HashMap<>();
        /** Lines whose check was answered, submitted before {@link #queue}. */
        final ArrayDeque<Pending> resumed = new ArrayDeque<>();
        final ProducerRefusals refusals = new ProducerRefusals();
        /** A thread is submitting the queue (or waiting for the log to open to do so). */
        boolean draining;
        /** Removed from the map: appenders that still found it take a new one. */
        boolean retired;

        Writer(TopicPartition tp) {
            this.tp = tp;
        }

        /** Where the draining thread took its current head from: {@link #resumed} or {@link #queue}. */
        ArrayDeque<Pending> headLine;

        /** The next append to submit, an answered line's first, else the queue's; null if none. */
        Pending peekNext() {
            headLine = resumed.isEmpty() ? queue : resumed;
            return headLine.peekFirst();
        }

        /** Takes the current head (see {@link #peekNext}) off its line. */
        Pending pollHead() {
            return headLine.pollFirst();
        }
    }

    /**
     * Queues an append to {@code tp} and, if no other thread is submitting that partition's
     * appends, submits the queue now. The result is the log's, or a refusal (see the class
     * comment): REQUEST_TIMED_OUT when the log is ready only after {@code deadlineNanos} (of
     * {@link System#nanoTime}; {@link Long#MAX_VALUE} for none).
     */
    CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos) {
        return append(tp, records, deadlineNanos, null, null, null);
    }

    /**
     * {@link #append(TopicPartition, MemoryRecords, long)} for a produce of {@code transactionalId}
     * (null: none): a transactional batch that would open a transaction here is checked with its
     * coordinator first, as {@code check} says, and refused with the code that answer becomes. The
     * check is asked with the other partitions of {@code batch} (null: on its own) if it starts
     * before the batch is closed.
     */
    CompletableFuture<AppendResult> append(TopicPartition tp, MemoryRecords records, long deadlineNanos,
            String transactionalId, TransactionCheck check, VerificationBatch batch) {
        return enqueue(tp, new Pending(records, null, deadlineNanos, transactionalId, check, batch));
    }

    /**
     * Queues {@code write} (a call on the partition's log other than {@link PartitionLog#append}: a
     * coordinator's transactional batch or transaction marker) in order with the partition's other
     * appends, without a deadline.
     */
    CompletableFuture<AppendResult> write(TopicPartition tp,
            Function<PartitionLog, CompletableFuture<AppendResult>> write) {
        return enqueue(tp, new Pending(MemoryRecords.EMPTY, write, Long.MAX_VALUE, null, null, null));
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
     * Submits {@code w}'s appends in order until none is left or it waits for the log to open. The
     * caller set draining. {@code opened}: the open the queue waited for, when resumed by it (its
     * outcome decides for the appends that waited, even if it failed and a new open could start now).
     */
    private void drain(Writer w, CompletableFuture<PartitionLog> opened) {
        while (true) {
            Pending head;
            boolean answered;
            synchronized (w) {
                head = w.peekNext();
                answered = w.headLine == w.resumed;
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
            if (!head.checked && head.deadlineNanos != Long.MAX_VALUE && System.nanoTime() - head.deadlineNanos > 0) {
                if (answered) {
                    // Waited behind its producer's check, not for the open: only it is late.
                    finishHead(w, CompletableFuture.failedFuture(new PartitionLogException(Errors.REQUEST_TIMED_OUT,
                            w.tp + ": waited past the produce request's timeout behind the producer's transaction "
                            + "check; its records were not appended")), true);
                    continue;
                }
                refuseQueued(w, new PartitionLogException(Errors.REQUEST_TIMED_OUT, w.tp + " opened only after the "
                        + "produce request's timeout; its records were not appended"), Errors.REQUEST_TIMED_OUT,
                        "opened only after a produce request's timeout");
                return;
            }
            if (!head.checked && holdBehindProducer(w, head)) {
                continue;
            }
            PartitionLogException gap;
            synchronized (w) {
                gap = w.refusals.gap(w.tp, pl, head.records);
                if (gap != null) {
                    w.refusals.remember(head.records, System.nanoTime());
                }
            }
            if (gap == null && !head.checked && startCheck(w, pl, head)) {
                continue; // set aside with its producer's line until the coordinator answers
            }
            CompletableFuture<AppendResult> appended;
            boolean refused = false;
            if (gap != null) {
                appended = CompletableFuture.failedFuture(gap);
            } else if (head.refusal != null) {
                appended = CompletableFuture.failedFuture(head.refusal);
                refused = true; // the producer's later batches wait for its retry
            } else {
                try {
                    // Submitted while this thread still drains: in order.
                    appended = head.write != null ? head.write.apply(pl) : pl.append(head.records, head.guard);
                } catch (RuntimeException e) {
                    appended = CompletableFuture.failedFuture(e); // a bug must not leave the partition's queue stuck
                }
            }
            if (finishHead(w, appended, refused)) {
                return;
            }
        }
    }

    /**
     * Takes the head off its line and completes it with {@code appended} once the queue moved on (a
     * caller that sees its append done finds it settled here); whether the writer went idle (this
     * thread stops draining). {@code remember}: the head was refused unappended.
     */
    private boolean finishHead(Writer w, CompletableFuture<AppendResult> appended, boolean remember) {
        Pending head;
        boolean idle;
        synchronized (w) {
            head = w.pollHead();
            if (remember) {
                w.refusals.remember(head.records, System.nanoTime());
            }
            idle = settleIfEmpty(w);
        }
        appended.whenComplete((r, e) -> {
            if (e != null) {
                head.result.completeExceptionally(e);
            } else {
                head.result.complete(r);
            }
        });
        return idle;
    }

    /** Moves {@code head} to the end of its producer's held line if it has one; whether it did. */
    private static boolean holdBehindProducer(Writer w, Pending head) {
        if (head.producerId < 0) {
            return false;
        }
        synchronized (w) {
            ArrayDeque<Pending> line = w.held.get(head.producerId);
            if (line == null) {
                return false;
            }
            w.pollHead();
            line.addLast(head);
            return true;
        }
    }

    /**
     * If {@code head} is a transactional batch whose transaction is not open in {@code pl} yet, takes
     * the log's guard, sets the head aside as its producer's held line and asks the coordinator (or
     * registers the question with the head's {@link VerificationBatch}); the line goes back to the
     * front once it answers. Whether it did.
     */
    private boolean startCheck(Writer w, PartitionLog pl, Pending head) {
        TransactionVerifier v = verifier;
        RecordBatch batch = head.transactionalId == null || v == null ? null : firstTransactional(head.records);
        if (batch == null) {
            return false;
        }
        head.guard = pl.startTransactionVerification(batch.producerId(), batch.producerEpoch(),
                !head.check.verifyOnly());
        if (head.guard == VerificationGuard.SENTINEL) {
            return false; // the transaction is open here: only its first batch is checked
        }
        head.checked = true;
        synchronized (w) {
            w.pollHead();
            ArrayDeque<Pending> line = new ArrayDeque<>();
            line.addLast(head);
            w.held.put(head.producerId, line);
        }
        TransactionCheck check = head.check;
        CompletableFuture<Errors> answer = null;
        try {
            if (head.batch != null) {
                answer = head.batch.register(v, head.transactionalId, batch.producerId(), batch.producerEpoch(), w.tp,
                        check);
            }
            if (answer == null) {
                answer = v.check(head.transactionalId, batch.producerId(), batch.producerEpoch(), w.tp, check);
            }
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        long producerId = batch.producerId();
        short epoch = batch.producerEpoch();
        answer = v.retryConcurrent(answer, head.transactionalId, check, () -> askAgain(v, pl, head, producerId,
                epoch, w.tp));
        answer.orTimeout(CHECK_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenCompleteAsync((error, failure) -> {
            Errors coordinatorError = failure != null ? Errors.NETWORK_EXCEPTION : error;
            Errors produceError = check.produceError(coordinatorError);
            if (produceError != Errors.NONE) {
                head.refusal = new PartitionLogException(produceError, produceError == Errors.NOT_ENOUGH_REPLICAS
                        ? "Unable to verify the partition has been added to the transaction. Underlying error: "
                                + coordinatorError
                        : w.tp + ": transaction " + head.transactionalId + " check failed: " + coordinatorError);
            }
            release(w, head);
        }, resume);
        return true;
    }

    /**
     * {@code head}'s check asked again on its own (see {@link TransactionVerifier#retryConcurrent}),
     * on the resume executor, not the thread that said to: with a fresh guard, since the markers of
     * the transaction its coordinator was completing void the one held; NONE if the transaction is
     * open here by now.
     */
    private CompletableFuture<Errors> askAgain(TransactionVerifier v, PartitionLog pl, Pending head, long producerId,
            short epoch, TopicPartition tp) {
        return CompletableFuture.supplyAsync(() -> {
            head.guard = pl.startTransactionVerification(producerId, epoch, !head.check.verifyOnly());
            return head.guard == VerificationGuard.SENTINEL ? CompletableFuture.completedFuture(Errors.NONE)
                    : v.check(head.transactionalId, producerId, epoch, tp, head.check);
        }, resume).thenCompose(f -> f);
    }

    /** The check of {@code head} was answered: its producer's line goes back first in the queue. */
    private void release(Writer w, Pending head) {
        synchronized (w) {
            ArrayDeque<Pending> line = w.held.remove(head.producerId);
            if (line != null) {
                w.resumed.addAll(line);
            }
            if (w.draining) {
                return; // the draining thread takes them next
            }
            w.draining = true;
        }
        drain(w, null);
    }

    /** The records' batch if it is transactional (Produce carries exactly one), else null. */
    private static RecordBatch firstTransactional(MemoryRecords records) {
        for (RecordBatch b : records.batches()) {
            return b.isTransactional() && b.hasProducerId() && !b.isControlBatch() ? b : null;
        }
        return null;
    }

    /**
     * If {@code w} has nothing left to submit now: this thread stops draining it and it is dropped
     * if it has nothing to remember; whether so. Called under its monitor by the draining thread.
     */
    private boolean settleIfEmpty(Writer w) {
        if (!w.queue.isEmpty() || !w.resumed.isEmpty()) {
            return false;
        }
        w.draining = false;
        retireIfIdle(w);
        return true;
    }

    /**
     * Refuses the append at the head of {@code w}'s queue with {@code headError} and every one
     * queued behind it now with {@code error} (they waited for the same open), remembering their
     * idempotent batches; the calling thread stops draining. Appends arriving after start afresh;
     * held lines go on once answered.
     */
    private void refuseQueued(Writer w, PartitionLogException headError, Errors error, String why) {
        List<Pending> refused;
        synchronized (w) {
            refused = new ArrayList<>(w.resumed);
            refused.addAll(w.queue);
            w.resumed.clear();
            w.queue.clear();
            long now = System.nanoTime();
            for (Pending p : refused) {
                w.refusals.remember(p.records, now);
            }
            settleIfEmpty(w);
        }
        for (int i = 0; i < refused.size(); i++) {
            refused.get(i).result.completeExceptionally(i == 0 ? headError : new PartitionLogException(error,
                    w.tp + " " + why + " while this produce waited behind another; its records were not appended "
                    + "(retry)"));
        }
    }

    /** Drops {@code w} if nothing is queued or held, no thread drains it and it remembers no refusal. Under its monitor. */
    private void retireIfIdle(Writer w) {
        if (!w.draining && w.queue.isEmpty() && w.resumed.isEmpty() && w.held.isEmpty() && w.refusals.isEmpty()) {
            w.retired = true;
            writers.remove(w.tp, w);
        }
    }

    /**
     * A produce this broker refused with UNKNOWN_TOPIC_ID (a topic id its metadata does not know yet:
     * Kafka 4's clients name topics by id): its idempotent batches count as refused unappended for
     * the partition, once the id is known (see {@link ProducerRefusals#gap}).
     */
    void refusedUnknownTopicId(UUID topicId, int partition, MemoryRecords records) {
        if (records == null) {
            return;
        }
        synchronized (refusedByTopicId) {
            long now = System.nanoTime();
            refusedByTopicId.values().removeIf(r -> {
                r.expire(now);
                return r.isEmpty();
            });
            anyRefusedByTopicId = !refusedByTopicId.isEmpty();
            TopicPartition key = byTopicId(topicId, partition);
            if (!refusedByTopicId.containsKey(key) && refusedByTopicId.size() >= MAX_REFUSED_TOPIC_IDS) {
                return; // bad input (made-up topic ids) must not grow this: the guard is best effort beyond the cap
            }
            refusedByTopicId.computeIfAbsent(key, k -> new ProducerRefusals()).remember(records, now);
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
            ProducerRefusals byId = id == null ? null : refusedByTopicId.remove(byTopicId(id, w.tp.partition()));
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
