package io.aloft.broker.txn;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TransactionMarkers} for a single broker: each marker is appended to this broker's own log
 * of the partition ({@link io.aloft.broker.log.PartitionLog#appendMarker}). A partition another
 * broker leads fails the write, which the coordinator retries after a pause; this broker has no
 * WriteTxnMarkers client to send it to that leader (multi-broker marker delivery is a later part of
 * issue 16), which is why {@code aloft.transactions.enable} is meant for one broker.
 *
 * <p>Kafka's coordinator epoch is the leader epoch of the transactional id's
 * {@code __transaction_state} partition, so a marker from a coordinator that has since moved is
 * refused by the partition (TRANSACTION_COORDINATOR_FENCED). Every transaction here is transaction
 * version 1 (the handlers advertise no version that speaks 2).
 *
 * <p>Outcomes per partition, as Kafka's marker sender treats them: written; a partition that no
 * longer exists counts as written; INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED mean a
 * newer producer or coordinator has taken over, so this marker is given up (counted as written and
 * logged) rather than retried forever; anything else fails the write and is retried.
 * A {@code __consumer_offsets} partition (added by AddOffsetsToTxn) gets its marker through the
 * group coordinator ({@link GroupMarkers}: its completeTransaction), which writes it in order with
 * its own records and then commits or drops the producer's pending offsets.
 *
 * <p>Thread-safe: called on transaction coordinator shard threads, never blocks; its futures
 * complete on the partitions' acknowledgement threads.
 */
public final class LocalTransactionMarkers implements TransactionMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(LocalTransactionMarkers.class);
    /** The marker format's version: what the partition's epoch checks depend on (KIP-890). */
    private static final short TRANSACTION_VERSION = 1;

    /**
     * Writes a marker into a {@code __consumer_offsets} partition: the group coordinator's
     * completeTransaction (failing with its Kafka exceptions).
     */
    @FunctionalInterface
    public interface GroupMarkers {
        CompletableFuture<Void> complete(TopicPartition offsetsPartition, long producerId, short producerEpoch,
                int coordinatorEpoch, boolean commit);
    }

    private final PartitionManager partitions;
    private final MetadataCache cache;
    private final GroupMarkers groupMarkers;
    private final ToIntFunction<String> statePartition;
    /** Partitions whose "not led here" was logged: once per partition, the retries are not. */
    private final Set<TopicPartition> reportedNotLeader = ConcurrentHashMap.newKeySet();

    /** @param statePartition the transactional id's {@code __transaction_state} partition */
    public LocalTransactionMarkers(PartitionManager partitions, MetadataCache cache,
            ToIntFunction<String> statePartition, GroupMarkers groupMarkers) {
        this.partitions = partitions;
        this.cache = cache;
        this.groupMarkers = groupMarkers;
        this.statePartition = statePartition;
    }

    @Override
    public CompletableFuture<Void> write(String transactionalId, long producerId, short producerEpoch, boolean commit,
            Map<String, List<Integer>> topics) {
        int coordinatorEpoch = coordinatorEpoch(transactionalId);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        topics.forEach((topic, ps) -> {
            for (int p : ps) {
                TopicPartition tp = new TopicPartition(topic, p);
                CompletableFuture<?> written = topic.equals(TransactionCoordinator.OFFSETS_TOPIC)
                        ? groupMarkers.complete(tp, producerId, producerEpoch, coordinatorEpoch, commit)
                                .exceptionally(LocalTransactionMarkers::asPartitionError)
                        : partitions.leaderLog(tp).thenCompose(log -> log.appendMarker(producerId, producerEpoch,
                                coordinatorEpoch, commit, TRANSACTION_VERSION));
                writes.add(written.handle((r, e) -> outcome(tp, transactionalId, e)));
            }
        });
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]));
    }

    private int coordinatorEpoch(String transactionalId) {
        TopicInfo topic = cache.view().topic(TransactionStateTopic.TOPIC);
        int p = statePartition.applyAsInt(transactionalId);
        return topic == null || p >= topic.partitions().size() ? 0 : topic.partitions().get(p).leaderEpoch();
    }

    /** The group coordinator's Kafka exception as the partition log's error, which {@link #outcome} reads. */
    private static Void asPartitionError(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof ApiException) {
            throw new CompletionException(new PartitionLogException(Errors.forException(cause), cause.getMessage()));
        }
        throw e instanceof CompletionException ce ? ce : new CompletionException(cause);
    }

    /** Null when the marker counts as written; throws (failing the write, to be retried) otherwise. */
    private Void outcome(TopicPartition tp, String transactionalId, Throwable e) {
        if (e == null) {
            reportedNotLeader.remove(tp);
            return null;
        }
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        Errors error = cause instanceof PartitionLogException ple ? ple.error() : Errors.UNKNOWN_SERVER_ERROR;
        switch (error) {
            case UNKNOWN_TOPIC_OR_PARTITION:
                return null; // deleted: nothing left to mark
            case INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED:
                LOG.warn("{}: marker of transactional id {} given up: {}", tp, transactionalId, cause.getMessage());
                return null;
            case NOT_LEADER_OR_FOLLOWER:
                if (reportedNotLeader.add(tp)) {
                    LOG.warn("{}: marker of transactional id {} not written: this broker does not lead the partition "
                            + "and cannot send markers to other brokers yet; retrying", tp, transactionalId);
                }
                throw new NotLeaderOrFollowerException(cause.getMessage());
            default:
                throw e instanceof CompletionException ce ? ce : new CompletionException(cause);
        }
    }
}
