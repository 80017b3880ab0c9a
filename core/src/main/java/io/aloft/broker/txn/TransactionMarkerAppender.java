package io.aloft.broker.txn;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.stream.StreamFencedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one transaction marker into a partition this broker leads: the one place local markers
 * are appended, whether they come from this broker's transaction coordinator
 * ({@link InterBrokerTransactionMarkers}) or from another broker's (the WriteTxnMarkers handler).
 * A partition of {@code __consumer_offsets} gets its marker through the group coordinator
 * ({@link OffsetsTransactionCompleter}); any other through
 * {@link io.aloft.broker.log.PartitionLog#appendMarker}, whose checks fence stale producer and
 * coordinator epochs.
 *
 * <p>The outcome is the partition's Kafka error, as WriteTxnMarkers answers it per partition:
 * NONE once the marker is durable; UNKNOWN_TOPIC_OR_PARTITION (no such partition);
 * NOT_LEADER_OR_FOLLOWER (another broker leads it, or took it over); INVALID_PRODUCER_EPOCH and
 * TRANSACTION_COORDINATOR_FENCED (a newer producer or coordinator has written there since);
 * KAFKA_STORAGE_ERROR and the like. Failures are mapped here, at one place.
 *
 * <p>Thread-safe and stateless; never blocks; its futures complete on the partitions'
 * acknowledgement threads (or the group coordinator's), and never exceptionally.
 */
public final class TransactionMarkerAppender {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkerAppender.class);

    private final PartitionManager partitions;
    private final OffsetsTransactionCompleter offsets;

    /** @param offsets ends transactions in {@code __consumer_offsets} partitions */
    public TransactionMarkerAppender(PartitionManager partitions, OffsetsTransactionCompleter offsets) {
        this.partitions = partitions;
        this.offsets = offsets;
    }

    /**
     * Appends a COMMIT ({@code commit}) or ABORT marker of {@code producerId} to {@code tp}.
     *
     * @param transactionVersion the marker's transaction version (0 and 1 alike; 2: KIP-890's stricter
     *     producer epoch check)
     */
    public CompletableFuture<Errors> append(TopicPartition tp, long producerId, short producerEpoch,
            int coordinatorEpoch, boolean commit, short transactionVersion) {
        CompletableFuture<?> written;
        try {
            if (tp.topic().equals(Topic.GROUP_METADATA_TOPIC_NAME)) {
                // Led here first: the group coordinator's answer for a partition it does not own is
                // NOT_COORDINATOR, mapped below, but a partition that does not exist is for the log to say.
                written = partitions.leaderLog(tp).thenCompose(log -> offsets.completeTransaction(tp, producerId,
                        producerEpoch, coordinatorEpoch, commit));
            } else {
                written = partitions.leaderLog(tp).thenCompose(log -> log.appendMarker(producerId, producerEpoch,
                        coordinatorEpoch, commit, transactionVersion));
            }
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        return written.handle((r, e) -> e == null ? Errors.NONE : errorFor(tp, e));
    }

    /** The per-partition error of a failed marker append. */
    static Errors errorFor(TopicPartition tp, Throwable failure) {
        Throwable e = failure;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof PartitionLogException ple) {
            return ple.error();
        }
        if (e instanceof StreamFencedException) {
            return Errors.NOT_LEADER_OR_FOLLOWER; // another broker took the partition over
        }
        if (!(e instanceof ApiException)) {
            LOG.error("{}: marker append failed unexpectedly", tp, e);
            return Errors.UNKNOWN_SERVER_ERROR;
        }
        Errors error = Errors.forException(e);
        return switch (error) {
            // The group coordinator does not serve the partition (yet): for the marker's sender, as
            // Kafka answers it, the partition's leader is not ready, which it retries.
            case NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE ->
                    Errors.NOT_LEADER_OR_FOLLOWER;
            default -> error;
        };
    }
}
