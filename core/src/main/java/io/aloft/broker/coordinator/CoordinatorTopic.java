package io.aloft.broker.coordinator;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.ControllerException;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's internal topic as the broker sees it: created on first need ({@link #ensureCreated},
 * which FindCoordinator calls, as Kafka creates {@code __consumer_offsets} on the first coordinator
 * lookup: by then the cluster's brokers have registered, so its partitions spread over all of them
 * rather than landing on whichever broker started first), and followed so that the coordinator
 * serves exactly the partitions this broker leads. State is in a
 * partition's log and only its leader may append, so a broker coordinates what its partitions hold
 * and nothing else; FindCoordinator points clients at the leader.
 *
 * <p>Leadership is read from the metadata cache whenever a topic changes in it (a move reaches a
 * broker through the change feed, as Kafka's brokers learn of theirs from the metadata log) and every
 * {@link #SYNC_INTERVAL_MS} ms besides: a newly led partition is loaded into the runtime (replayed
 * from its log), one led elsewhere now is unloaded. A partition is owned at the leader epoch it was
 * loaded at: one led at another epoch since (moved away and back between two looks, so another
 * broker may have coordinated it meanwhile and written to its log) is unloaded and loaded again, so
 * the coordinator never serves state older than its log, and its coordinator epoch (the leader
 * epoch, for transaction markers) is the current one. Loading blocks, so it runs on this class's
 * own thread, never on a network thread.
 *
 * <p>Thread-safe: {@code owned} is confined to the loader thread.
 */
public final class CoordinatorTopic implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorTopic.class);

    /**
     * The partition of a coordinator's internal topic that owns {@code key} (a group id, a
     * transactional id): Kafka's abs(hashCode) % partitions, with Integer.MIN_VALUE taken as 0 as
     * Kafka's Utils.abs does, so clients and Kafka agree on which broker coordinates it.
     */
    public static int partitionFor(String key, int partitions) {
        int h = key.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % partitions;
    }

    /**
     * How often leadership is compared with what the coordinator serves. Partitions move rarely
     * (broker start, fencing, drain, reassignment), and until a move is seen the old leader's appends
     * fail with NOT_COORDINATOR, so clients only see a short retry.
     */
    static final long SYNC_INTERVAL_MS = 1_000;
    /** Creating the topic and loading every led partition (each opened and replayed) at broker start. */
    static final long START_TIMEOUT_MS = 120_000;

    /** What to do with a partition this broker starts or stops leading (the coordinator loads it into, or unloads it from, its {@link CoordinatorRuntime}). */
    public interface Partitions {
        /** Loads the partition; blocks until it serves. */
        void loadPartition(int partition);

        /** Stops serving the partition. */
        void unloadPartition(int partition);

        /**
         * Whether the partition is loaded or loading. The runtime unloads a partition whose state
         * got ahead of its log (a failed append); the next sync loads it again.
         */
        boolean isServing(int partition);
    }

    private final ControllerClient controller;
    private final MetadataCache cache;
    private final int nodeId;
    private final String topic;
    private final int partitionCount;
    private final Map<String, String> topicConfigs;
    private final int streamsPerPartition;
    private final Partitions coordinator;
    private final ScheduledExecutorService loader;
    /** Partitions loaded into the coordinator, with the leader epoch each was loaded at; loader thread only. */
    private final Map<Integer, Integer> owned = new HashMap<>();
    /** A sync asked for by a cache change and not started yet: one pass for a burst of changes. */
    private final AtomicBoolean syncQueued = new AtomicBoolean();
    /** The creation in flight or done, so that a burst of lookups submits one CreateTopic. */
    private final AtomicReference<CompletableFuture<TopicInfo>> creation = new AtomicReference<>();

    /**
     * @param partitionCount the partition count when the topic is created (e.g. offsets.topic.num.partitions)
     * @param topicConfigs the topic's configs when created
     * @param streamsPerPartition streams of a partition log, as for every topic
     * @param threads makes the loader thread
     */
    public CoordinatorTopic(ControllerClient controller, MetadataCache cache, int nodeId, String topic,
            int partitionCount, Map<String, String> topicConfigs, int streamsPerPartition, Partitions coordinator,
            ThreadFactory threads) {
        this.controller = controller;
        this.cache = cache;
        this.nodeId = nodeId;
        this.topic = topic;
        this.partitionCount = partitionCount;
        this.topicConfigs = Map.copyOf(topicConfigs);
        this.streamsPerPartition = streamsPerPartition;
        this.coordinator = coordinator;
        this.loader = Executors.newSingleThreadScheduledExecutor(threads);
    }

    /**
     * Loads the partitions this broker leads, if the topic exists (returning once they are loaded,
     * or failing after {@link #START_TIMEOUT_MS}), then keeps following leadership.
     */
    public void start() throws Exception {
        TopicInfo known = cache.view().topic(topic);
        if (known != null) {
            warnOnPartitionCount(known);
        }
        loader.submit(this::sync).get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        loader.scheduleWithFixedDelay(this::sync, SYNC_INTERVAL_MS, SYNC_INTERVAL_MS, TimeUnit.MILLISECONDS);
        // A move away unloads at once rather than up to a poll later (until then this broker would
        // answer reads from the state it had); a move here loads at once. Runs on the cache's thread:
        // only hands the sync over.
        cache.onTopicsChanged(() -> {
            if (syncQueued.compareAndSet(false, true)) {
                try {
                    loader.execute(() -> {
                        syncQueued.set(false);
                        sync();
                    });
                } catch (RejectedExecutionException closed) {
                    syncQueued.set(false); // closing: nothing to follow any more
                }
            }
        });
    }

    /**
     * The topic, created through the controller when the cache does not have it (at most one
     * creation in flight; a failed one is tried again on the next call), then loaded at once where
     * this broker leads it rather than at the next periodic sync. Created directly rather than
     * through TopicManager, which refuses internal names to clients.
     */
    public CompletableFuture<TopicInfo> ensureCreated() {
        TopicInfo known = cache.view().topic(topic);
        if (known != null) {
            warnOnPartitionCount(known);
            return addMissingConfigs(known);
        }
        CompletableFuture<TopicInfo> mine = new CompletableFuture<>();
        CompletableFuture<TopicInfo> current = creation.get();
        if (current != null && !current.isCompletedExceptionally()) {
            return current;
        }
        if (!creation.compareAndSet(current, mine)) {
            return creation.get();
        }
        create().whenComplete((t, error) -> {
            if (error != null) {
                mine.completeExceptionally(error);
                return;
            }
            mine.complete(t);
            try {
                loader.execute(this::sync);
            } catch (RejectedExecutionException closed) {
                // Closing: nothing to load.
            }
        });
        return mine;
    }

    private CompletableFuture<TopicInfo> create() {
        CreateTopic create = new CreateTopic(UUID.randomUUID(), topic, partitionCount, streamsPerPartition,
                topicConfigs);
        return controller.submit(create, TopicInfo.class).handle((created, error) -> {
            if (error == null) {
                log.info("Created {} with {} partitions", topic, partitionCount);
                return CompletableFuture.completedFuture(created);
            }
            if (isTopicExists(error)) {
                // Another broker made it, or the cache had not yet received the controller's image.
                return fetchExisting();
            }
            return CompletableFuture.<TopicInfo>failedFuture(error);
        }).thenCompose(f -> f).thenApply(t -> {
            cache.putTopic(t);
            warnOnPartitionCount(t);
            return t;
        }).thenCompose(this::addMissingConfigs);
    }

    /**
     * Gives an existing topic the configs it was created without (a topic made by an older build:
     * {@code __consumer_offsets} before it was compacted). A key the topic sets already, to
     * whatever value, is left as the operator set it.
     */
    private CompletableFuture<TopicInfo> addMissingConfigs(TopicInfo t) {
        Map<String, String> missing = new java.util.TreeMap<>(topicConfigs);
        missing.keySet().removeAll(t.configs().keySet());
        if (missing.isEmpty()) {
            return CompletableFuture.completedFuture(t);
        }
        return controller.submit(new AlterTopicConfigs(topic, missing, List.of()), TopicInfo.class).thenApply(altered -> {
            log.info("Set {} on {}, created without them", missing, topic);
            cache.putTopic(altered);
            return altered;
        });
    }

    /** Keys are placed by the configured count, so a topic of another size strands some of them. */
    private void warnOnPartitionCount(TopicInfo t) {
        if (t.partitions().size() != partitionCount) {
            log.error("{} has {} partitions but the configured count is {}: keys hashed to missing partitions "
                    + "have no coordinator; set it back to {}", topic, t.partitions().size(), partitionCount,
                    t.partitions().size());
        }
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<TopicInfo> fetchExisting() {
        return controller.query(new Queries.GetTopics(List.of(topic)), List.class).thenApply(l -> {
            List<TopicInfo> found = (List<TopicInfo>) l;
            if (found.isEmpty()) {
                throw new IllegalStateException(topic + " exists and then does not");
            }
            return found.get(0);
        });
    }

    private static boolean isTopicExists(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof ControllerException ce && ce.code() == ControllerException.Code.TOPIC_EXISTS;
    }

    /**
     * Loads newly led partitions, unloads ones led elsewhere now, and reloads ones led at another
     * leader epoch than they were loaded at. Runs on the loader thread.
     */
    private void sync() {
        try {
            Map<Integer, Integer> led = ledPartitions();
            for (Map.Entry<Integer, Integer> o : Map.copyOf(owned).entrySet()) {
                Integer epoch = led.get(o.getKey());
                if (epoch == null || epoch.intValue() != o.getValue()) {
                    if (epoch != null) {
                        log.info("{}-{}: led again at leader epoch {}, loaded at {}: reloading", topic, o.getKey(),
                                epoch, o.getValue());
                    }
                    coordinator.unloadPartition(o.getKey());
                    owned.remove(o.getKey());
                }
            }
            for (Map.Entry<Integer, Integer> p : led.entrySet()) {
                if (!owned.containsKey(p.getKey()) || !coordinator.isServing(p.getKey())) {
                    owned.remove(p.getKey());
                    load(p.getKey(), p.getValue());
                }
            }
        } catch (RuntimeException e) {
            // The next sync tries again; a broker without this coordinator still serves everything else.
            log.warn("Following leadership of {} failed", topic, e);
        }
    }

    private void load(int partition, int leaderEpoch) {
        try {
            coordinator.loadPartition(partition);
            owned.put(partition, leaderEpoch);
        } catch (RuntimeException e) {
            // Left unowned, so the next sync retries; clients meanwhile get NOT_COORDINATOR and retry too.
            log.warn("{}-{}: could not load; retrying in {} ms", topic, partition, SYNC_INTERVAL_MS, e);
        }
    }

    /** The partitions this broker leads, with their leader epochs. */
    private Map<Integer, Integer> ledPartitions() {
        TopicInfo t = cache.view().topic(topic);
        Map<Integer, Integer> led = new HashMap<>();
        if (t != null) {
            for (PartitionInfo p : t.partitions()) {
                if (p.brokerId() == nodeId) {
                    led.put(p.partition(), p.leaderEpoch());
                }
            }
        }
        return led;
    }

    @Override
    public void close() {
        loader.shutdownNow();
        try {
            if (!loader.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("The {} loader did not stop within 10 s", topic);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
