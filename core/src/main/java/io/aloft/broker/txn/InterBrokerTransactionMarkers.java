package io.aloft.broker.txn;

import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TransactionMarkers} for a cluster: each partition's marker goes to the partition's leader,
 * as the metadata cache names it. Partitions this broker leads are written by the
 * {@link TransactionMarkerAppender}; those of another broker are sent to it in WriteTxnMarkers
 * requests over the {@link InterBrokerClient}, batched per destination: one request in flight per
 * broker, and everything queued for it meanwhile (markers of any number of transactions) goes in
 * the next one, as Kafka's marker channel drains its per-broker queues.
 *
 * <p>Outcomes per partition, as Kafka's marker sender treats them: written; a partition that no
 * longer exists counts as written (the cache no longer has it when it is routed); INVALID_PRODUCER_EPOCH
 * or TRANSACTION_COORDINATOR_FENCED mean a newer producer or coordinator has taken over, so this
 * marker is given up (counted as written, and logged) rather than retried forever; anything else
 * (NOT_LEADER_OR_FOLLOWER, a broker down or not answering, no leader at the moment, a leader that
 * does not serve WriteTxnMarkers yet) is retried with backoff ({@value #RETRY_BACKOFF_MS} ms doubling to
 * {@value #RETRY_BACKOFF_MAX_MS} ms), routed afresh each time, so a partition that moved is sent to
 * its new leader. A marker still not written {@value #GIVE_UP_AFTER_MS} ms after it was asked for
 * fails its write; the coordinator then asks again after its own pause (and stops asking once its
 * partition has moved away, which ends the retries here too).
 *
 * <p>Threads: {@link #write} may be called on any thread (it is called on the transaction
 * coordinator's shard threads) and only hands the markers over. All routing, queues and outcomes are
 * confined to the one thread of the executor given (aloft-transaction-markers in the broker); the
 * client's and the partitions' completions are handed back to it, so no marker logic runs on their
 * threads. The futures of {@link #write} complete on that thread.
 */
public final class InterBrokerTransactionMarkers implements TransactionMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(InterBrokerTransactionMarkers.class);

    static final long RETRY_BACKOFF_MS = 100;
    static final long RETRY_BACKOFF_MAX_MS = 1_000;
    static final long GIVE_UP_AFTER_MS = 30_000;

    /** Who leads a partition now. */
    @FunctionalInterface
    public interface Leaders {
        /** No such partition (its topic was deleted). */
        int NO_PARTITION = -2;
        /** The partition exists but no broker serves it at the moment. */
        int NO_LEADER = -1;

        /** The leader's broker id, or {@link #NO_PARTITION} or {@link #NO_LEADER}. */
        int leaderOf(TopicPartition tp);

        /** As the metadata cache knows it (the controller's change feed keeps it current). */
        static Leaders fromCache(MetadataCache cache) {
            return tp -> {
                TopicInfo t = cache.view().topic(tp.topic());
                if (t == null || tp.partition() < 0 || tp.partition() >= t.partitions().size()) {
                    return NO_PARTITION;
                }
                int broker = t.partitions().get(tp.partition()).brokerId();
                return broker < 0 ? NO_LEADER : broker;
            };
        }
    }

    /** One partition's marker, until written or given up; confined to the markers' thread. */
    private static final class Marker {
        final String transactionalId;
        final long producerId;
        final short producerEpoch;
        final int coordinatorEpoch;
        final boolean commit;
        /** The transaction's version (KIP-1228: what epoch the partition takes as stale). */
        final short transactionVersion;
        final TopicPartition tp;
        final long deadlineMs;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        int attempts;

        Marker(String transactionalId, long producerId, short producerEpoch, int coordinatorEpoch, boolean commit,
                TopicPartition tp, long deadlineMs, short transactionVersion) {
            this.transactionVersion = transactionVersion;
            this.transactionalId = transactionalId;
            this.producerId = producerId;
            this.producerEpoch = producerEpoch;
            this.coordinatorEpoch = coordinatorEpoch;
            this.commit = commit;
            this.tp = tp;
            this.deadlineMs = deadlineMs;
        }
    }

    /** The markers waiting for one broker, and whether a request to it is out; confined to the thread. */
    private static final class Destination {
        final ArrayDeque<Marker> queued = new ArrayDeque<>();
        boolean inFlight;
    }

    private final int nodeId;
    private final Leaders leaders;
    private final TransactionMarkerAppender local;
    private final InterBrokerClient client;
    private final ScheduledExecutorService thread;
    private final LongSupplier clock;
    private final Map<Integer, Destination> destinations = new HashMap<>();

    /**
     * @param nodeId this broker: partitions it leads are written locally
     * @param thread the one thread all marker work runs on (single-threaded; the caller closes it)
     * @param clock milliseconds, for the give-up deadline
     */
    public InterBrokerTransactionMarkers(int nodeId, Leaders leaders, TransactionMarkerAppender local,
            InterBrokerClient client, ScheduledExecutorService thread, LongSupplier clock) {
        this.nodeId = nodeId;
        this.leaders = leaders;
        this.local = local;
        this.client = client;
        this.thread = thread;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Void> write(String transactionalId, long producerId, short producerEpoch,
            int coordinatorEpoch, boolean commit, Map<String, List<Integer>> partitions, short transactionVersion) {
        long deadline = clock.getAsLong() + GIVE_UP_AFTER_MS;
        List<Marker> markers = new ArrayList<>();
        partitions.forEach((topic, ps) -> ps.forEach(p -> markers.add(new Marker(transactionalId, producerId,
                producerEpoch, coordinatorEpoch, commit, new TopicPartition(topic, p), deadline,
                transactionVersion))));
        if (!onThread(() -> markers.forEach(this::route))) {
            return CompletableFuture.failedFuture(new IllegalStateException("transaction markers are closed"));
        }
        return CompletableFuture.allOf(markers.stream().map(m -> m.done).toArray(CompletableFuture<?>[]::new));
    }

    private boolean onThread(Runnable task) {
        try {
            thread.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false; // closing: what is in flight completes into nothing
        }
    }

    /** Sends the marker where its partition is led now. On the markers' thread. */
    private void route(Marker m) {
        int leader = leaders.leaderOf(m.tp);
        if (leader == Leaders.NO_PARTITION) {
            m.done.complete(null); // deleted: nothing left to mark
        } else if (leader == Leaders.NO_LEADER) {
            retry(m, "no leader");
        } else if (leader == nodeId) {
            local.append(m.tp, m.producerId, m.producerEpoch, m.coordinatorEpoch, m.commit, m.transactionVersion)
                    .whenComplete((error, e) -> onThread(() -> outcome(m, e == null ? error : Errors.UNKNOWN_SERVER_ERROR,
                            "broker " + nodeId + " (this one)")));
        } else {
            Destination d = destinations.computeIfAbsent(leader, id -> new Destination());
            d.queued.add(m);
            drain(leader, d);
        }
    }

    /** Sends everything queued for {@code broker} in one request, unless one is out already. */
    private void drain(int broker, Destination d) {
        if (d.inFlight || d.queued.isEmpty()) {
            return;
        }
        List<Marker> batch = new ArrayList<>(d.queued);
        d.queued.clear();
        d.inFlight = true;
        CompletableFuture<AbstractResponse> sent;
        try {
            sent = client.send(broker, new WriteTxnMarkersRequest.Builder(entries(batch)));
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((response, error) -> onThread(() -> answered(broker, d, batch, response, error)));
    }

    /** The request's markers: one entry per transaction (producer, epochs, result), with its partitions. */
    private static List<WriteTxnMarkersRequest.TxnMarkerEntry> entries(List<Marker> markers) {
        Map<List<Object>, List<TopicPartition>> byTransaction = new LinkedHashMap<>();
        for (Marker m : markers) {
            byTransaction.computeIfAbsent(List.of(m.producerId, m.producerEpoch, m.coordinatorEpoch, m.commit,
                    m.transactionVersion), k -> new ArrayList<>()).add(m.tp);
        }
        List<WriteTxnMarkersRequest.TxnMarkerEntry> entries = new ArrayList<>();
        byTransaction.forEach((k, tps) -> entries.add(new WriteTxnMarkersRequest.TxnMarkerEntry((Long) k.get(0),
                (Short) k.get(1), (Integer) k.get(2), (Boolean) k.get(3) ? TransactionResult.COMMIT
                        : TransactionResult.ABORT, tps, (Short) k.get(4))));
        return entries;
    }

    private void answered(int broker, Destination d, List<Marker> batch, AbstractResponse response, Throwable error) {
        d.inFlight = false;
        String where = "broker " + broker;
        if (error != null || !(response instanceof WriteTxnMarkersResponse r)) {
            String why = error != null ? unwrap(error).toString() : "unexpected response " + response;
            batch.forEach(m -> retry(m, where + ": " + why));
        } else {
            Map<Long, Map<TopicPartition, Errors>> errors = r.errorsByProducerId();
            for (Marker m : batch) {
                Errors e = errors.getOrDefault(m.producerId, Map.of()).get(m.tp);
                if (e == null) {
                    retry(m, where + " did not answer for the partition");
                } else {
                    outcome(m, e, where);
                }
            }
        }
        drain(broker, d);
    }

    private void outcome(Marker m, Errors error, String where) {
        switch (error) {
            case NONE -> m.done.complete(null);
            case INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED -> {
                LOG.warn("{}: marker of transactional id {} (producer {}, epoch {}, coordinator epoch {}) given up: "
                        + "{} answered {}", m.tp, m.transactionalId, m.producerId, m.producerEpoch, m.coordinatorEpoch,
                        where, error);
                m.done.complete(null);
            }
            default -> retry(m, where + " answered " + error);
        }
    }

    private void retry(Marker m, String why) {
        long now = clock.getAsLong();
        if (now >= m.deadlineMs) {
            LOG.warn("{}: marker of transactional id {} not written within {} ms (last: {}); the coordinator will "
                    + "ask again", m.tp, m.transactionalId, GIVE_UP_AFTER_MS, why);
            m.done.completeExceptionally(new MarkerNotWrittenException(m.tp + ": " + why));
            return;
        }
        long backoff = Math.min(RETRY_BACKOFF_MAX_MS, RETRY_BACKOFF_MS << Math.min(m.attempts, 10));
        m.attempts++;
        LOG.debug("{}: marker of transactional id {} retried in {} ms: {}", m.tp, m.transactionalId, backoff, why);
        try {
            thread.schedule(() -> route(m), Math.min(backoff, Math.max(0, m.deadlineMs - now)), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing: completes into nothing
        }
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** A marker that could not be written in time; the coordinator retries the transaction's markers. */
    static final class MarkerNotWrittenException extends RuntimeException {
        MarkerNotWrittenException(String message) {
            super(message);
        }
    }
}
