package io.aloft.broker.share.state;

import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.TopicInfo;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link ShareStatePersister}: each call goes to the share coordinator of the key's
 * {@code __share_group_state} partition, which is the partition's leader as the metadata cache names
 * it: this broker's own {@link ShareCoordinator} when it leads it, else Kafka's
 * Initialize/Read/Write/Delete/ReadShareGroupStateSummary request to the leader over the
 * {@link InterBrokerClient} ({@link ShareStateRequests}). Nothing is batched: one call, one request.
 *
 * <p>Retries: a coordinator that moved or is loading (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE), a partition without a leader, a leader that cannot be reached or does
 * not answer, or does not serve the API yet, are tried again, routed afresh each time, after
 * {@value #RETRY_BACKOFF_MS} ms doubling to {@value #RETRY_BACKOFF_MAX_MS} ms; once
 * {@code retryTimeoutMs} has passed since the call the future fails with
 * CoordinatorNotAvailableException naming the last error. While the topic does not exist each attempt
 * asks for it to be created (as FindCoordinator does), so the first share group needs no lookup
 * first. Any other Kafka error fails the call as answered; anything else as UnknownServerException.
 *
 * <p>Thread-safe; never blocks. Retries and completions run on the executor given (one thread,
 * aloft-share-state in the broker), so callers' continuations never run on the coordinator's or the
 * network client's threads.
 */
public final class RoutingShareStatePersister implements ShareStatePersister {
    private static final Logger LOG = LoggerFactory.getLogger(RoutingShareStatePersister.class);

    static final long RETRY_BACKOFF_MS = 50;
    static final long RETRY_BACKOFF_MAX_MS = 1_000;
    /** How long a call keeps trying to reach its coordinator, by default. */
    public static final long DEFAULT_RETRY_TIMEOUT_MS = 15_000;

    /** Who leads a partition of {@code __share_group_state} now. */
    @FunctionalInterface
    public interface Leaders {
        /** The topic does not exist (yet). */
        int NO_TOPIC = -2;
        /** No broker serves the partition at the moment. */
        int NO_LEADER = -1;

        /** The leader's broker id, or {@link #NO_TOPIC} or {@link #NO_LEADER}. */
        int leaderOf(int statePartition);

        /** As the metadata cache knows it. */
        static Leaders fromCache(MetadataCache cache) {
            return p -> {
                TopicInfo t = cache.view().topic(ShareStateTopic.TOPIC);
                if (t == null || p >= t.partitions().size()) {
                    return NO_TOPIC;
                }
                int broker = t.partitions().get(p).brokerId();
                return broker < 0 ? NO_LEADER : broker;
            };
        }
    }

    private final int nodeId;
    private final int statePartitions;
    private final ShareCoordinator local;
    private final Leaders leaders;
    private final InterBrokerClient client;
    private final Runnable createTopic;
    private final ScheduledExecutorService executor;
    private final LongSupplier clock;
    private final long retryTimeoutMs;

    /**
     * @param statePartitions share.coordinator.state.topic.num.partitions: Kafka's rule from key to partition
     * @param local this broker's share coordinator; null for a persister on no broker (tests), which
     *     sends every call
     * @param createTopic starts creating {@code __share_group_state}; called while it does not exist
     * @param executor one thread for retries and completions
     * @param clock milliseconds, for the retry deadline
     */
    public RoutingShareStatePersister(int nodeId, int statePartitions, ShareCoordinator local, Leaders leaders,
            InterBrokerClient client, Runnable createTopic, ScheduledExecutorService executor, LongSupplier clock,
            long retryTimeoutMs) {
        this.nodeId = nodeId;
        this.statePartitions = statePartitions;
        this.local = local;
        this.leaders = leaders;
        this.client = client;
        this.createTopic = createTopic;
        this.executor = executor;
        this.clock = clock;
        this.retryTimeoutMs = retryTimeoutMs;
    }

    @Override
    public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        return call("initialize", key, c -> c.initialize(key, stateEpoch, startOffset),
                ShareStateRequests.initialize(key, stateEpoch, startOffset), ShareStateRequests::initialized);
    }

    @Override
    public CompletableFuture<Optional<ShareState>> read(SharePartitionKey key, int leaderEpoch) {
        return call("read", key, c -> c.read(key, leaderEpoch), ShareStateRequests.read(key, leaderEpoch),
                r -> ShareStateRequests.state(r, leaderEpoch));
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<StateBatch> batches) {
        return call("write", key, c -> c.write(key, stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount,
                batches), ShareStateRequests.write(key, stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount,
                batches), ShareStateRequests::written);
    }

    @Override
    public CompletableFuture<Optional<ShareStateSummary>> readSummary(SharePartitionKey key) {
        return call("read-summary", key, c -> c.readSummary(key), ShareStateRequests.readSummary(key),
                ShareStateRequests::summary);
    }

    @Override
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        return call("delete", key, c -> c.delete(key), ShareStateRequests.delete(key), ShareStateRequests::deleted);
    }

    /** One call until answered or given up; its fields are confined to the executor once started. */
    private final class Call<T> {
        final String name;
        final SharePartitionKey key;
        final Function<ShareCoordinator, CompletableFuture<T>> onLocal;
        final AbstractRequest.Builder<?> request;
        final Function<AbstractResponse, T> parse;
        final long deadlineMs;
        final CompletableFuture<T> result = new CompletableFuture<>();
        long backoffMs = RETRY_BACKOFF_MS;

        Call(String name, SharePartitionKey key, Function<ShareCoordinator, CompletableFuture<T>> onLocal,
                AbstractRequest.Builder<?> request, Function<AbstractResponse, T> parse) {
            this.name = name;
            this.key = key;
            this.onLocal = onLocal;
            this.request = request;
            this.parse = parse;
            this.deadlineMs = clock.getAsLong() + retryTimeoutMs;
        }

        void attempt() {
            CompletableFuture<T> answer;
            try {
                int partition = CoordinatorTopic.partitionFor(key.coordinatorKey(), statePartitions);
                int leader = leaders.leaderOf(partition);
                if (leader == Leaders.NO_TOPIC) {
                    createTopic.run();
                    answer = CompletableFuture.failedFuture(new CoordinatorNotAvailableException(
                            ShareStateTopic.TOPIC + " does not exist yet"));
                } else if (leader == Leaders.NO_LEADER) {
                    answer = CompletableFuture.failedFuture(new CoordinatorNotAvailableException(
                            ShareStateTopic.TOPIC + "-" + partition + " has no leader"));
                } else if (leader == nodeId && local != null) {
                    answer = onLocal.apply(local);
                } else {
                    answer = client.send(leader, request).thenApply(parse);
                }
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((v, e) -> {
                try {
                    executor.execute(() -> settle(v, e));
                } catch (RejectedExecutionException closed) {
                    result.completeExceptionally(new CoordinatorNotAvailableException("the broker is stopping"));
                }
            });
        }

        private void settle(T value, Throwable error) {
            if (error == null) {
                result.complete(value);
                return;
            }
            Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (!retriable(e)) {
                result.completeExceptionally(e instanceof ApiException ? e
                        : new UnknownServerException("share state " + name + " of " + key.coordinatorKey()
                                + " failed: " + e, e));
                return;
            }
            long now = clock.getAsLong();
            if (now + backoffMs > deadlineMs) {
                LOG.debug("share state {} of {}: coordinator not reached within {} ms", name, key.coordinatorKey(),
                        retryTimeoutMs, e);
                result.completeExceptionally(new CoordinatorNotAvailableException("share state " + name + " of "
                        + key.coordinatorKey() + ": no coordinator within " + retryTimeoutMs + " ms (last: " + e
                        + ")"));
                return;
            }
            try {
                executor.schedule(this::attempt, backoffMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                result.completeExceptionally(new CoordinatorNotAvailableException("the broker is stopping"));
                return;
            }
            backoffMs = Math.min(backoffMs * 2, RETRY_BACKOFF_MAX_MS);
        }
    }

    private <T> CompletableFuture<T> call(String name, SharePartitionKey key,
            Function<ShareCoordinator, CompletableFuture<T>> onLocal, AbstractRequest.Builder<?> request,
            Function<AbstractResponse, T> parse) {
        Call<T> c = new Call<>(name, key, onLocal, request, parse);
        c.attempt();
        return c.result;
    }

    /** Whether another attempt, routed afresh, may succeed. */
    static boolean retriable(Throwable e) {
        return e instanceof NotCoordinatorException || e instanceof CoordinatorLoadInProgressException
                || e instanceof CoordinatorNotAvailableException || e instanceof DisconnectException
                || e instanceof TimeoutException || e instanceof BrokerNotAvailableException
                || e instanceof UnsupportedVersionException;
    }
}
