package io.aloft.broker.share.state;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.CoordinatorRuntime;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.log.PartitionLogException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share coordinator (KIP-932): keeps share partitions' state in {@code __share_group_state}, for
 * the handlers of Initialize/Read/Write/Delete/ReadShareGroupStateSummary and for this broker's
 * {@link RoutingShareStatePersister}. A service in front of a {@link CoordinatorRuntime}: a share
 * partition's state lives in the shard of its partition ({@link #partitionFor}), every call for it runs
 * there ({@link ShareCoordinatorShard}), and every change is a record appended to that partition and
 * replayed when it loads. Only keys of loaded partitions are served; others fail with
 * NotCoordinatorException (CoordinatorLoadInProgressException while loading).
 *
 * <p>Errors: every future fails with a Kafka {@link ApiException}, mapped here at one place
 * ({@link #apiException}): the shard's own refusals (fenced epochs, a write never initialized), the
 * runtime's, and a failed append as NOT_COORDINATOR (the partition moved: its leader epoch changed) or
 * COORDINATOR_NOT_AVAILABLE; anything else is a bug, logged, and UNKNOWN_SERVER_ERROR.
 *
 * <p>Thread-safe: any thread may call; futures complete on the shards' threads.
 */
public final class ShareCoordinator implements CoordinatorTopic.Partitions, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShareCoordinator.class);

    /** How many partitions a topic has, to refuse state for one that does not exist. */
    @FunctionalInterface
    public interface Topics {
        /** The partition count of the topic with this id, or -1 when there is none. */
        int partitionCount(Uuid topicId);
    }

    private final int partitions;
    private final Topics topics;
    private final CoordinatorRuntime<ShareCoordinatorShard, ShareStateRecord> runtime;

    /**
     * @param partitions share.coordinator.state.topic.num.partitions
     * @param log the partitions of {@code __share_group_state}
     * @param threads the shards' threads; the caller closes them after this coordinator
     */
    ShareCoordinator(int partitions, CoordinatorLog<ShareStateRecord> log, CoordinatorTimer timer,
            CoordinatorThreads threads, Topics topics) {
        this.partitions = partitions;
        this.topics = topics;
        this.runtime = new CoordinatorRuntime<>("share", log, timer, threads, ctx -> new ShareCoordinatorShard());
    }

    /** The {@code __share_group_state} partition of {@code key}: Kafka's abs(hashCode) % partitions. */
    public int partitionFor(SharePartitionKey key) {
        return partitionFor(key.coordinatorKey());
    }

    /** The partition of a FindCoordinator share key ({@code groupId:topicId:partition}). */
    public int partitionFor(String coordinatorKey) {
        return CoordinatorTopic.partitionFor(coordinatorKey, partitions);
    }

    // ---- ownership -----------------------------------------------------------------------

    @Override
    public void loadPartition(int partition) {
        runtime.load(partition);
    }

    @Override
    public void unloadPartition(int partition) {
        runtime.unload(partition);
    }

    @Override
    public boolean isServing(int partition) {
        return runtime.status(partition) != CoordinatorRuntime.Status.NOT_SERVED;
    }

    /** Whether this broker serves (or is loading) the partition holding {@code key}. */
    public boolean owns(SharePartitionKey key) {
        return isServing(partitionFor(key));
    }

    // ---- operations ------------------------------------------------------------------------

    /** See {@link ShareStatePersister#initialize}; UnknownTopicOrPartitionException for a partition that does not exist. */
    public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        int count = topics.partitionCount(key.topicId());
        if (key.partition() < 0 || key.partition() >= count) {
            return CompletableFuture.failedFuture(new UnknownTopicOrPartitionException(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
        }
        return mapped(runtime.write("initialize-share-state", partitionFor(key),
                s -> s.initialize(key, stateEpoch, startOffset)));
    }

    /** See {@link ShareStatePersister#read}. */
    public CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch) {
        return mapped(runtime.write("read-share-state", partitionFor(key), s -> s.read(key, leaderEpoch)));
    }

    /**
     * See {@link ShareStatePersister#write}; InvalidRequestException when never initialized (as Kafka
     * answers).
     */
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<StateBatch> batches) {
        return mapped(runtime.write("write-share-state", partitionFor(key),
                s -> s.write(key, stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount, batches)));
    }

    /** See {@link ShareStatePersister#readSummary}. */
    public CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key) {
        return mapped(runtime.read("read-share-state-summary", partitionFor(key), s -> s.readSummary(key)));
    }

    /** See {@link ShareStatePersister#delete}. */
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        return mapped(runtime.write("delete-share-state", partitionFor(key), s -> s.delete(key)));
    }

    private static <T> CompletableFuture<T> mapped(CompletableFuture<T> f) {
        return f.handle((v, e) -> e == null ? CompletableFuture.completedFuture(v)
                : CompletableFuture.<T>failedFuture(apiException(e))).thenCompose(Function.identity());
    }

    /** The Kafka exception a caller sees for {@code e}. */
    static ApiException apiException(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof PartitionLogException ple) {
            Errors error = ple.error();
            return switch (error) {
                case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> new NotCoordinatorException(t.getMessage());
                default -> new CoordinatorNotAvailableException(t.getMessage());
            };
        }
        if (t instanceof ApiException api) {
            return switch (Errors.forException(api)) {
                case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> new NotCoordinatorException(t.getMessage());
                case NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT ->
                        new CoordinatorNotAvailableException(t.getMessage());
                default -> api;
            };
        }
        LOG.error("share coordinator: unexpected failure", t);
        return new UnknownServerException("share coordinator: " + t);
    }

    /** Unloads every partition. Threads are the caller's. */
    @Override
    public void close() {
        runtime.close();
    }
}
