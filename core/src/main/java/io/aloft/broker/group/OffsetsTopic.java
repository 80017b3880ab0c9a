package io.aloft.broker.group;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.ControllerException;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The internal topic {@code __consumer_offsets} as the group coordinator sees it: created at
 * broker start if missing, and followed so that the coordinator owns exactly the partitions this
 * broker leads. Group state is in a partition's log, and only its leader may append, so a broker
 * coordinates the groups of the partitions it leads and no others; FindCoordinator points
 * clients at that leader.
 *
 * <p>Leadership is read from the metadata cache every {@link #SYNC_INTERVAL_MS} ms: a newly led
 * partition is loaded (replayed from its log), one led elsewhere now is unloaded. Loading blocks,
 * so it runs on this class's own thread ({@code aloft-group-loader}), never on a network thread.
 *
 * <p>Thread-safe: {@code owned} is confined to the loader thread.
 */
public final class OffsetsTopic implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OffsetsTopic.class);

    /**
     * How often leadership is compared with what the coordinator owns. Partitions move rarely
     * (broker start, fencing, drain, reassignment), and until a move is seen the old leader's
     * appends fail with NOT_COORDINATOR, so clients only see a short retry.
     */
    static final long SYNC_INTERVAL_MS = 1_000;
    /** Creating the topic and loading every led partition (each opened and replayed) at broker start. */
    static final long START_TIMEOUT_MS = 120_000;

    /**
     * Settings of the internal topic: never aged out by time or size, since the coordinator
     * deletes offsets itself (offsets.retention.minutes, DeleteGroups, OffsetDelete) by writing
     * tombstones, and a record dropped by retention would silently lose a live group's offsets.
     */
    static final Map<String, String> TOPIC_CONFIGS = Map.of(
            LogConfig.RETENTION_MS_CONFIG, "-1",
            LogConfig.RETENTION_BYTES_CONFIG, "-1");

    private final ControllerClient controller;
    private final MetadataCache cache;
    private final int nodeId;
    private final GroupCoordinator coordinator;
    private final int partitions;
    private final ScheduledExecutorService loader;
    /** Partitions loaded into the coordinator; confined to the loader thread. */
    private final Set<Integer> owned = new HashSet<>();

    /**
     * @param partitions offsets.topic.num.partitions: the partition count when the topic is created
     */
    public OffsetsTopic(ControllerClient controller, MetadataCache cache, int nodeId, GroupCoordinator coordinator,
            int partitions) {
        this(controller, cache, nodeId, coordinator, partitions, r -> {
            Thread t = new Thread(r, "aloft-group-loader");
            t.setDaemon(true);
            return t;
        });
    }

    /** With the broker's thread factory (its name and uncaught-exception handler). */
    public OffsetsTopic(ControllerClient controller, MetadataCache cache, int nodeId, GroupCoordinator coordinator,
            int partitions, java.util.concurrent.ThreadFactory threads) {
        this.controller = controller;
        this.cache = cache;
        this.nodeId = nodeId;
        this.coordinator = coordinator;
        this.partitions = partitions;
        this.loader = Executors.newSingleThreadScheduledExecutor(threads);
    }

    /**
     * Creates the topic if missing, loads the partitions this broker leads (returning once they
     * are loaded, or failing after {@link #START_TIMEOUT_MS}), then keeps following leadership.
     */
    public void start() throws Exception {
        ensureCreated().get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        loader.submit(this::sync).get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        loader.scheduleWithFixedDelay(this::sync, SYNC_INTERVAL_MS, SYNC_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * The topic, created through the controller when the cache does not have it. Created directly
     * rather than through TopicManager, which refuses internal names to clients.
     */
    CompletableFuture<TopicInfo> ensureCreated() {
        TopicInfo known = cache.view().topic(PartitionGroupLog.TOPIC);
        if (known != null) {
            warnOnPartitionCount(known);
            return CompletableFuture.completedFuture(known);
        }
        CreateTopic create = new CreateTopic(UUID.randomUUID(), PartitionGroupLog.TOPIC, partitions,
                PartitionLog.STREAMS_PER_PARTITION, TOPIC_CONFIGS);
        return controller.submit(create, TopicInfo.class).handle((created, error) -> {
            if (error == null) {
                log.info("Created {} with {} partitions", PartitionGroupLog.TOPIC, partitions);
                return CompletableFuture.completedFuture(created);
            }
            if (isTopicExists(error)) {
                // Another broker made it, or the cache had not yet received the controller's image.
                return fetchExisting();
            }
            return CompletableFuture.<TopicInfo>failedFuture(error);
        }).thenCompose(f -> f).thenApply(topic -> {
            cache.putTopic(topic);
            warnOnPartitionCount(topic);
            return topic;
        });
    }

    /** Groups are placed by the configured count, so a topic of another size strands some of them. */
    private void warnOnPartitionCount(TopicInfo topic) {
        if (topic.partitions().size() != partitions) {
            log.error("{} has {} partitions but offsets.topic.num.partitions is {}: groups hashed to missing "
                    + "partitions have no coordinator; set it back to {}", PartitionGroupLog.TOPIC,
                    topic.partitions().size(), partitions, topic.partitions().size());
        }
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<TopicInfo> fetchExisting() {
        return controller.query(new Queries.GetTopics(List.of(PartitionGroupLog.TOPIC)), List.class).thenApply(l -> {
            List<TopicInfo> found = (List<TopicInfo>) l;
            if (found.isEmpty()) {
                throw new IllegalStateException(PartitionGroupLog.TOPIC + " exists and then does not");
            }
            return found.get(0);
        });
    }

    private static boolean isTopicExists(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof ControllerException ce && ce.code() == ControllerException.Code.TOPIC_EXISTS;
    }

    /** Loads newly led partitions and unloads ones led elsewhere now. Runs on the loader thread. */
    private void sync() {
        try {
            Set<Integer> led = ledPartitions();
            for (int p : Set.copyOf(owned)) {
                if (!led.contains(p)) {
                    coordinator.unloadPartition(p);
                    owned.remove(p);
                }
            }
            for (int p : led) {
                if (!owned.contains(p)) {
                    load(p);
                }
            }
        } catch (RuntimeException e) {
            // The next sync tries again; a broker without its groups still serves everything else.
            log.warn("Following leadership of {} failed", PartitionGroupLog.TOPIC, e);
        }
    }

    private void load(int partition) {
        try {
            coordinator.loadPartition(partition);
            owned.add(partition);
        } catch (RuntimeException e) {
            // Left unowned, so the next sync retries; clients meanwhile get NOT_COORDINATOR and retry too.
            log.warn("{}-{}: could not load groups; retrying in {} ms", PartitionGroupLog.TOPIC, partition,
                    SYNC_INTERVAL_MS, e);
        }
    }

    private Set<Integer> ledPartitions() {
        TopicInfo topic = cache.view().topic(PartitionGroupLog.TOPIC);
        Set<Integer> led = new HashSet<>();
        if (topic != null) {
            for (PartitionInfo p : topic.partitions()) {
                if (p.brokerId() == nodeId) {
                    led.add(p.partition());
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
                log.warn("The group loader did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
