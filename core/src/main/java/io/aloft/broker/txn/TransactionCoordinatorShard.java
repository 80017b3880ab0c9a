package io.aloft.broker.txn;

import static io.aloft.broker.txn.TransactionRecord.NO_PRODUCER_EPOCH;
import static io.aloft.broker.txn.TransactionRecord.NO_PRODUCER_ID;

import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorShard;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.ShardContext;
import io.aloft.broker.txn.TransactionRecord.Metadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional ids of one {@code __transaction_state} partition and Kafka's transaction state
 * machine over them (see {@link TransactionState}): a {@link CoordinatorShard}, so it runs on one
 * thread and holds a plain map. {@link TransactionCoordinator} routes each request here by the
 * id's partition.
 *
 * <p>Operations only check and compute: each returns the records of its transition, which the
 * runtime applies at once through {@link #replay} (so the next operation sees them, with no
 * "pending" state as Kafka keeps) and makes durable before the response goes out; {@link #replay}
 * rebuilds the same map when the partition loads.
 *
 * <p>Completing a transaction takes two records with the markers in between: Prepare* is written,
 * then (only once it is durable, so no marker is written for a decision that could be lost) the
 * shard asks {@link TransactionMarkers} to write the markers; their future completes on another
 * thread, which hands the completion back to this shard as a new operation ({@link FollowUps});
 * that one writes Complete*. Nothing waits on the shard's thread. A failed marker write is retried
 * by a timer; a transaction found in Prepare* when the partition loads has its markers written again.
 *
 * <p>Timers: ongoing transactions past their timeout are aborted with a fenced epoch
 * (transaction.abort.timed.out.transaction.cleanup.interval.ms), idle ids past
 * transactional.id.expiration.ms are tombstoned (transaction.remove.expired.transaction.cleanup.interval.ms).
 *
 * <p>Confined to the shard's thread (and the loading thread before {@link #onLoaded}).
 */
final class TransactionCoordinatorShard implements CoordinatorShard<TransactionRecord> {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinatorShard.class);

    /** Pause before writing markers again after a failed attempt. */
    static final long MARKER_RETRY_BACKOFF_MS = 1_000L;

    /** Runs a follow-up operation on a shard, from any thread (the service submits it to the runtime). */
    @FunctionalInterface
    interface FollowUps {
        void write(int partition, String name,
                Function<TransactionCoordinatorShard, CoordinatorResult<Void, TransactionRecord>> operation);
    }

    private final TransactionCoordinatorConfig config;
    private final ShardContext<TransactionRecord> ctx;
    private final ProducerIdSource ids;
    private final TransactionMarkers markers;
    private final FollowUps followUps;
    /**
     * Kafka's coordinator epoch: the leader epoch of this shard's {@code __transaction_state}
     * partition when it was loaded, carried by every marker it asks for, so a partition refuses the
     * markers of a coordinator that has since lost the partition (TRANSACTION_COORDINATOR_FENCED).
     */
    private final int coordinatorEpoch;
    private final Map<String, Metadata> transactions = new HashMap<>();
    /** Ids whose markers are being written now, so a second start (load, retry) does not double them. */
    private final Set<String> writingMarkers = new HashSet<>();
    /**
     * Partition leaders waiting for an id's transaction to complete ({@link #awaitCompletion}), each
     * with the timer that gives up on it; woken once Complete* is durable, or on unload.
     */
    private final Map<String, List<CompletionWaiter>> completionWaiters = new HashMap<>();
    private boolean unloaded;

    TransactionCoordinatorShard(TransactionCoordinatorConfig config, ShardContext<TransactionRecord> ctx,
            ProducerIdSource ids, TransactionMarkers markers, FollowUps followUps, int coordinatorEpoch) {
        this.config = config;
        this.coordinatorEpoch = coordinatorEpoch;
        this.ctx = ctx;
        this.ids = ids;
        this.markers = markers;
        this.followUps = followUps;
    }

    // ---- state ---------------------------------------------------------------------------

    @Override
    public void replay(TransactionRecord record) {
        if (record.metadata() == null) {
            transactions.remove(record.transactionalId());
        } else {
            transactions.put(record.transactionalId(), record.metadata());
        }
    }

    /** Transactions left in Prepare* by the partition's previous owner get their markers written again. */
    @Override
    public void onLoaded() {
        for (Map.Entry<String, Metadata> e : transactions.entrySet()) {
            if (e.getValue().state().preparing()) {
                startMarkers(e.getKey());
            }
        }
        ctx.schedule(config.abortTimedOutIntervalMs(), "abort-timed-out-transactions", this::abortTimedOut);
        ctx.schedule(config.removeExpiredIntervalMs(), "expire-transactional-ids", this::expireIds);
    }

    /**
     * Marker writes still in flight complete into nothing; the partition's next owner writes them
     * again. Leaders waiting for a completion ask again (and learn the coordinator moved).
     */
    @Override
    public void onUnloaded() {
        unloaded = true;
        for (String id : List.copyOf(completionWaiters.keySet())) {
            wakeCompletionWaiters(id);
        }
    }

    /** The metadata of {@code transactionalId}, or null (for tests and describe). */
    Metadata metadata(String transactionalId) {
        return transactions.get(transactionalId);
    }

    // ---- InitProducerId ------------------------------------------------------------------

    /**
     * InitProducerId of a transactional producer (KIP-98), or of one recovering from an error that
     * names its current producer id and epoch (KIP-360; both -1 when it names none).
     */
    CoordinatorResult<ProducerResult, TransactionRecord> initProducerId(String transactionalId, int timeoutMs,
            long expectedProducerId, short expectedEpoch) {
        long now = ctx.nowMs();
        boolean expected = expectedProducerId != NO_PRODUCER_ID;
        if (expected != (expectedEpoch != NO_PRODUCER_EPOCH)) {
            return answer(ProducerResult.error(Errors.INVALID_REQUEST));
        }
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeoutMs()) {
            return answer(ProducerResult.error(Errors.INVALID_TRANSACTION_TIMEOUT));
        }
        Metadata m = transactions.get(transactionalId);
        if (m == null) {
            Metadata created = Transitions.created(ids.nextProducerId(), timeoutMs, now);
            return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, created)),
                    ProducerResult.ok(created.producerId(), created.producerEpoch()));
        }
        if (expected && !knownProducer(m, expectedProducerId, expectedEpoch)) {
            return answer(ProducerResult.error(Errors.PRODUCER_FENCED));
        }
        if (m.state().preparing()) {
            return answer(ProducerResult.error(Errors.CONCURRENT_TRANSACTIONS)); // the client retries
        }
        if (m.state() == TransactionState.ONGOING) {
            // Abort the open transaction first, fencing the producer that opened it. The client is told
            // to retry; its retry then finds the abort complete and bumps the epoch once more.
            return abort(transactionalId, m, true, ProducerResult.error(Errors.CONCURRENT_TRANSACTIONS), now);
        }
        if (!m.state().idle()) {
            return answer(ProducerResult.error(Errors.INVALID_TXN_STATE)); // Dead, PrepareEpochFence: never held
        }
        Metadata next;
        if (Metadata.epochExhausted(m.producerEpoch()) && (!expected || expectedEpoch == m.producerEpoch())) {
            next = Transitions.rotated(m, ids.nextProducerId(), expected ? m.producerEpoch() : NO_PRODUCER_EPOCH,
                    timeoutMs, now);
        } else if (!expected) {
            next = Transitions.initialized(m, (short) (m.producerEpoch() + 1), NO_PRODUCER_EPOCH, timeoutMs, now);
        } else if (m.producerEpoch() == NO_PRODUCER_EPOCH || expectedEpoch == m.producerEpoch()) {
            next = Transitions.initialized(m, (short) (m.producerEpoch() + 1), m.producerEpoch(), timeoutMs, now);
        } else if (expectedEpoch == m.lastProducerEpoch()) {
            // A retry of a bump whose answer the producer never got: the same id and epoch again.
            next = Transitions.initialized(m, m.producerEpoch(), m.lastProducerEpoch(), timeoutMs, now);
        } else {
            return answer(ProducerResult.error(Errors.PRODUCER_FENCED));
        }
        return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, next)),
                ProducerResult.ok(next.producerId(), next.producerEpoch()));
    }

    /**
     * KIP-360: a producer naming its id may re-initialize if it is the current id, or the previous
     * one at an exhausted epoch (a retry after a rotation), or if the id never had an epoch.
     */
    private static boolean knownProducer(Metadata m, long producerId, short epoch) {
        return m.producerEpoch() == NO_PRODUCER_EPOCH || producerId == m.producerId()
                || (producerId == m.previousProducerId() && Metadata.epochExhausted(epoch));
    }

    // ---- AddPartitionsToTxn / AddOffsetsToTxn --------------------------------------------

    /**
     * Adds partitions to the producer's transaction, starting one if none is open.
     *
     * @param clientVersion the client's transaction version (1, or 2 for KIP-890 clients)
     */
    CoordinatorResult<Errors, TransactionRecord> addPartitions(String transactionalId, long producerId, short epoch,
            Map<String, ? extends Collection<Integer>> partitions, short clientVersion) {
        Metadata m = transactions.get(transactionalId);
        if (m == null || m.producerId() != producerId) {
            return CoordinatorResult.of(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (m.producerEpoch() != epoch) {
            return CoordinatorResult.of(Errors.PRODUCER_FENCED);
        }
        if (m.state().preparing()) {
            return CoordinatorResult.of(Errors.CONCURRENT_TRANSACTIONS); // the last one is still completing
        }
        if (m.state() == TransactionState.ONGOING && containsAll(m, partitions)) {
            return CoordinatorResult.of(Errors.NONE); // nothing new to write
        }
        if (m.state() != TransactionState.ONGOING && !m.state().idle()) {
            return CoordinatorResult.of(Errors.INVALID_TXN_STATE);
        }
        Metadata next = Transitions.partitionsAdded(m, partitions, clientVersion, ctx.nowMs());
        return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, next)), Errors.NONE);
    }

    /**
     * AddPartitionsToTxn with verifyOnly (v4+, KIP-890 part 1: a partition leader checking a
     * transactional produce): NONE for each partition in the transaction, TRANSACTION_ABORTABLE for
     * each one not in it; one error for all of them if the producer does not match or the
     * transaction is completing. Writes nothing.
     */
    Map<String, Map<Integer, Errors>> verifyPartitions(String transactionalId, long producerId, short epoch,
            Map<String, ? extends Collection<Integer>> partitions) {
        Metadata m = transactions.get(transactionalId);
        Errors all = null;
        if (m == null || m.producerId() != producerId) {
            all = Errors.INVALID_PRODUCER_ID_MAPPING;
        } else if (m.producerEpoch() != epoch) {
            all = Errors.PRODUCER_FENCED;
        } else if (m.state().preparing()) {
            all = Errors.CONCURRENT_TRANSACTIONS;
        }
        Map<String, Map<Integer, Errors>> out = new HashMap<>();
        for (Map.Entry<String, ? extends Collection<Integer>> e : partitions.entrySet()) {
            Map<Integer, Errors> byPartition = out.computeIfAbsent(e.getKey(), t -> new HashMap<>());
            for (int p : e.getValue()) {
                byPartition.put(p, all != null ? all
                        : m.contains(e.getKey(), p) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
            }
        }
        return out;
    }

    private static boolean containsAll(Metadata m, Map<String, ? extends Collection<Integer>> partitions) {
        for (Map.Entry<String, ? extends Collection<Integer>> e : partitions.entrySet()) {
            for (int p : e.getValue()) {
                if (!m.contains(e.getKey(), p)) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- waiting for a completion --------------------------------------------------------

    /** A leader's wait in {@link #awaitCompletion}: its future and the timer that ends it. */
    private record CompletionWaiter(CompletableFuture<Void> future, CoordinatorTimer.Scheduled timeout) {
    }

    /**
     * Completes once {@code transactionalId}'s transaction is no longer completing (its markers are
     * written and Complete* is durable), or after {@code maxWaitMs}, or when this shard unloads; at
     * once if it is not completing now. For a partition leader whose add met CONCURRENT_TRANSACTIONS
     * (a producer's next transaction, begun as soon as EndTxn answered): it asks again as soon as
     * the add can succeed, instead of after a fixed pause. Writes nothing; never fails.
     */
    CompletableFuture<Void> awaitCompletion(String transactionalId, long maxWaitMs) {
        Metadata m = transactions.get(transactionalId);
        if (unloaded || m == null || !m.state().preparing()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> future = new CompletableFuture<>();
        // The timer runs on this thread too, so the list is only ever touched here.
        CoordinatorTimer.Scheduled timeout = ctx.schedule(maxWaitMs, "transaction-completion-wait", () -> {
            List<CompletionWaiter> waiting = completionWaiters.get(transactionalId);
            if (waiting != null) {
                waiting.removeIf(w -> w.future() == future);
                if (waiting.isEmpty()) {
                    completionWaiters.remove(transactionalId);
                }
            }
            future.complete(null);
            return CoordinatorResult.of(null);
        });
        completionWaiters.computeIfAbsent(transactionalId, id -> new ArrayList<>())
                .add(new CompletionWaiter(future, timeout));
        return future;
    }

    private void wakeCompletionWaiters(String transactionalId) {
        List<CompletionWaiter> waiting = completionWaiters.remove(transactionalId);
        if (waiting == null) {
            return;
        }
        for (CompletionWaiter w : waiting) {
            w.timeout().cancel();
            w.future().complete(null);
        }
    }

    // ---- EndTxn --------------------------------------------------------------------------

    /**
     * EndTxn: commits or aborts the producer's transaction. Answers once Prepare* is durable (the
     * decision cannot be lost then); the markers and Complete* follow. v2 clients (KIP-890) get
     * the epoch they go on with.
     */
    CoordinatorResult<ProducerResult, TransactionRecord> endTxn(String transactionalId, long producerId, short epoch,
            boolean commit, short clientVersion) {
        Metadata m = transactions.get(transactionalId);
        if (m == null) {
            return answer(ProducerResult.error(Errors.INVALID_PRODUCER_ID_MAPPING));
        }
        EndTxnRules.Decision d = clientVersion >= 2 ? EndTxnRules.v2(m, producerId, epoch, commit)
                : EndTxnRules.v1(m, producerId, epoch, commit);
        if (d.error() != null) {
            return answer(d.error() == Errors.NONE ? ProducerResult.ok(m.producerId(), m.producerEpoch())
                    : ProducerResult.error(d.error()));
        }
        long now = ctx.nowMs();
        long nextId = Transitions.preparingNeedsProducerId(m, clientVersion) ? ids.nextProducerId() : NO_PRODUCER_ID;
        Metadata prepared = Transitions.prepared(m, commit, false, clientVersion, nextId, now);
        ProducerResult response = clientVersion >= 2 ? Transitions.afterCompletion(prepared)
                : ProducerResult.ok(prepared.producerId(), prepared.producerEpoch());
        return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, prepared)), response,
                (failure, next) -> {
                    if (failure == null) {
                        startMarkers(transactionalId);
                    }
                });
    }

    /** Writes PrepareAbort (fencing the producer if {@code fence}); markers follow once it is durable. */
    private CoordinatorResult<ProducerResult, TransactionRecord> abort(String transactionalId, Metadata m,
            boolean fence, ProducerResult response, long now) {
        short version = m.clientTransactionVersion();
        long nextId = Transitions.preparingNeedsProducerId(m, version) ? ids.nextProducerId() : NO_PRODUCER_ID;
        Metadata prepared = Transitions.prepared(m, false, fence, version, nextId, now);
        return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, prepared)), response,
                (failure, next) -> {
                    if (failure == null) {
                        startMarkers(transactionalId);
                    }
                });
    }

    // ---- markers -------------------------------------------------------------------------

    /** Asks for the markers of {@code transactionalId}'s durable Prepare*; the answer comes back as an operation. */
    private void startMarkers(String transactionalId) {
        Metadata m = transactions.get(transactionalId);
        if (unloaded || m == null || !m.state().preparing() || !writingMarkers.add(transactionalId)) {
            return;
        }
        boolean commit = m.state() == TransactionState.PREPARE_COMMIT;
        long producerId = m.producerId();
        short epoch = m.producerEpoch();
        int partition = ctx.partition();
        CompletableFuture<Void> written;
        if (m.partitions().isEmpty()) {
            written = CompletableFuture.completedFuture(null); // a KIP-890 abort of nothing: no marker to write
        } else {
            try {
                written = markers.write(transactionalId, producerId, epoch, coordinatorEpoch, commit, m.partitions(),
                        m.clientTransactionVersion());
            } catch (RuntimeException e) {
                written = CompletableFuture.failedFuture(e);
            }
        }
        written.whenComplete((v, error) -> {
            if (error == null) {
                followUps.write(partition, "complete-transaction",
                        s -> s.markersWritten(transactionalId, producerId, epoch, commit));
            } else {
                followUps.write(partition, "retry-transaction-markers",
                        s -> s.markersFailed(transactionalId, error));
            }
        });
    }

    /** The markers of a Prepare* are written: Complete*, unless the transaction moved on meanwhile. */
    CoordinatorResult<Void, TransactionRecord> markersWritten(String transactionalId, long producerId, short epoch,
            boolean commit) {
        writingMarkers.remove(transactionalId);
        Metadata m = transactions.get(transactionalId);
        TransactionState expected = commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
        if (m == null || m.state() != expected || m.producerId() != producerId || m.producerEpoch() != epoch) {
            return CoordinatorResult.of(null); // a late answer for a transaction already completed
        }
        Metadata done = Transitions.completed(m, ctx.nowMs());
        LOG.debug("transaction {} of producer {} epoch {}: {}", transactionalId, producerId, epoch, done.state());
        // Leaders waiting to add partitions to the next transaction go once Complete* is durable
        // (if it could not be written the shard unloads, and they learn that when they ask again).
        return CoordinatorResult.of(List.of(new TransactionRecord(transactionalId, done)), null,
                (failure, next) -> wakeCompletionWaiters(transactionalId));
    }

    /** The markers could not be written: try again after a pause, as long as the transaction waits for them. */
    CoordinatorResult<Void, TransactionRecord> markersFailed(String transactionalId, Throwable error) {
        writingMarkers.remove(transactionalId);
        LOG.warn("__transaction_state-{}: markers of transaction {} could not be written, retrying in {} ms: {}",
                ctx.partition(), transactionalId, MARKER_RETRY_BACKOFF_MS, error.toString());
        ctx.schedule(MARKER_RETRY_BACKOFF_MS, "retry-transaction-markers", () -> {
            startMarkers(transactionalId);
            return CoordinatorResult.of(null);
        });
        return CoordinatorResult.of(null);
    }

    // ---- timers --------------------------------------------------------------------------

    /** Aborts every ongoing transaction past its timeout, fencing its producer; then runs again later. */
    CoordinatorResult<Void, TransactionRecord> abortTimedOut() {
        // Re-armed first: a transaction that cannot be aborted now must not stop the checks for good.
        ctx.schedule(config.abortTimedOutIntervalMs(), "abort-timed-out-transactions", this::abortTimedOut);
        long now = ctx.nowMs();
        List<TransactionRecord> records = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        for (Map.Entry<String, Metadata> e : transactions.entrySet()) {
            Metadata m = e.getValue();
            if (m.state() != TransactionState.ONGOING || m.startMs() + m.timeoutMs() >= now) {
                continue;
            }
            short version = m.clientTransactionVersion();
            Metadata prepared;
            try {
                long nextId = Transitions.preparingNeedsProducerId(m, version) ? ids.nextProducerId() : NO_PRODUCER_ID;
                prepared = Transitions.prepared(m, false, true, version, nextId, now);
            } catch (RuntimeException e2) {
                // No producer id at hand yet (or an epoch that cannot be fenced): the next round tries again.
                LOG.warn("__transaction_state-{}: cannot abort timed-out transaction {} yet: {}", ctx.partition(),
                        e.getKey(), e2.toString());
                continue;
            }
            records.add(new TransactionRecord(e.getKey(), prepared));
            aborted.add(e.getKey());
            LOG.info("__transaction_state-{}: transaction {} of producer {} timed out after {} ms; aborting it",
                    ctx.partition(), e.getKey(), m.producerId(), m.timeoutMs());
        }
        return CoordinatorResult.of(records, null, (failure, next) -> {
            if (failure == null) {
                aborted.forEach(this::startMarkers);
            }
        });
    }

    /** Forgets idle transactional ids not used for transactional.id.expiration.ms; then runs again later. */
    CoordinatorResult<Void, TransactionRecord> expireIds() {
        ctx.schedule(config.removeExpiredIntervalMs(), "expire-transactional-ids", this::expireIds);
        long cutoff = ctx.nowMs() - config.idExpirationMs();
        List<TransactionRecord> tombstones = new ArrayList<>();
        for (Map.Entry<String, Metadata> e : transactions.entrySet()) {
            if (e.getValue().state().idle() && e.getValue().lastUpdateMs() <= cutoff) {
                tombstones.add(TransactionRecord.tombstone(e.getKey()));
            }
        }
        if (!tombstones.isEmpty()) {
            LOG.info("__transaction_state-{}: {} transactional ids expired", ctx.partition(), tombstones.size());
        }
        return CoordinatorResult.of(tombstones, null);
    }

    // ---- DescribeTransactions / ListTransactions -----------------------------------------

    /** DescribeTransactions of one id; an unknown one is TRANSACTIONAL_ID_NOT_FOUND. */
    DescribeTransactionsResponseData.TransactionState describe(String transactionalId) {
        DescribeTransactionsResponseData.TransactionState out = new DescribeTransactionsResponseData.TransactionState()
                .setTransactionalId(transactionalId);
        Metadata m = transactions.get(transactionalId);
        if (m == null) {
            return out.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
        }
        m.partitions().forEach((topic, ps) -> out.topics().add(
                new DescribeTransactionsResponseData.TopicData().setTopic(topic).setPartitions(new ArrayList<>(ps))));
        return out.setErrorCode(Errors.NONE.code()).setProducerId(m.producerId()).setProducerEpoch(m.producerEpoch())
                .setTransactionState(m.state().kafkaName()).setTransactionTimeoutMs(m.timeoutMs())
                .setTransactionStartTimeMs(m.startMs());
    }

    /**
     * ListTransactions over this partition. Empty filters match everything; {@code durationMs} below 0
     * matches everything, else transactions started more than that long ago; {@code idPattern} null
     * matches every id.
     */
    List<ListTransactionsResponseData.TransactionState> list(Set<TransactionState> states, Set<Long> producerIds,
            long durationMs, Pattern idPattern) {
        long now = ctx.nowMs();
        List<ListTransactionsResponseData.TransactionState> out = new ArrayList<>();
        transactions.forEach((id, m) -> {
            if ((states.isEmpty() || states.contains(m.state()))
                    && (producerIds.isEmpty() || producerIds.contains(m.producerId()))
                    && (durationMs < 0 || now - m.startMs() > durationMs)
                    && (idPattern == null || idPattern.matcher(id).matches())) {
                out.add(new ListTransactionsResponseData.TransactionState().setTransactionalId(id)
                        .setProducerId(m.producerId()).setTransactionState(m.state().kafkaName()));
            }
        });
        return out;
    }

    private static <T> CoordinatorResult<T, TransactionRecord> answer(T response) {
        return CoordinatorResult.of(response);
    }
}
