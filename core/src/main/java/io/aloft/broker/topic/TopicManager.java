package io.aloft.broker.topic;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.config.ConfigException;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.model.TopicInfo;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * Creates and deletes topics through the controller, with the checks Kafka makes before it
 * (legal name, partition count, known config keys), and keeps this broker's metadata cache in
 * step with its own changes. Failures are kafka-clients exceptions, so handlers map them to
 * error codes directly.
 */
public final class TopicManager {

    /**
     * Every topic-level config key Kafka defines: TopicConfig's *_CONFIG constants, and the two
     * replication throttles Kafka defines elsewhere, which {@code kafka-reassign-partitions.sh
     * --throttle} sets and {@code --verify} clears (stored, with no effect: nothing is replicated).
     */
    public static final Set<String> KNOWN_CONFIGS = knownConfigs();

    private final ControllerClient controller;
    private final MetadataCache cache;
    private final int defaultPartitions;
    private final int streamsPerPartition;

    public TopicManager(ControllerClient controller, MetadataCache cache, int defaultPartitions,
            int streamsPerPartition) {
        this.controller = controller;
        this.cache = cache;
        this.defaultPartitions = defaultPartitions;
        this.streamsPerPartition = streamsPerPartition;
    }

    public int defaultPartitions() {
        return defaultPartitions;
    }

    /**
     * Checks a creation without doing it.
     *
     * @param partitions -1 for the default
     * @throws org.apache.kafka.common.errors.ApiException the Kafka error the client should get
     */
    public int validate(String name, int partitions, Map<String, String> configs) {
        try {
            Topic.validate(name);
        } catch (InvalidTopicException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InvalidTopicException(e.getMessage());
        }
        if (Topic.isInternal(name)) {
            throw new InvalidTopicException("topic " + name + " is internal to the broker");
        }
        int count = partitions == -1 ? defaultPartitions : partitions;
        if (count < 1 || count > 100_000) {
            throw new InvalidPartitionsException("number of partitions must be 1 to 100000, not " + partitions);
        }
        validateConfigs(configs);
        return count;
    }

    /**
     * Checks topic config overrides: known keys, and valid values (and combinations) for the keys
     * the log uses.
     *
     * @throws InvalidConfigurationException naming the key
     */
    public void validateConfigs(Map<String, String> configs) {
        for (Map.Entry<String, String> e : configs.entrySet()) {
            if (!KNOWN_CONFIGS.contains(e.getKey())) {
                throw new InvalidConfigurationException("unknown topic config " + e.getKey());
            }
        }
        try {
            LogConfig.fromTopicOverrides(configs, LogConfig.defaults());
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }

    /** Creates a topic (validated first); the cache has it when the future completes. */
    public CompletableFuture<TopicInfo> create(String name, int partitions, Map<String, String> configs) {
        int count;
        try {
            count = validate(name, partitions, configs);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return controller.submit(new CreateTopic(UUID.randomUUID(), name, count, streamsPerPartition, configs),
                TopicInfo.class).thenApply(topic -> {
                    cache.putTopic(topic);
                    return topic;
                });
    }

    /** Grows a topic to {@code totalPartitions}; the cache has the new partitions when the future completes. */
    public CompletableFuture<TopicInfo> grow(TopicInfo topic, int totalPartitions) {
        return controller.submit(new CreatePartitions(topic.name(), totalPartitions), TopicInfo.class)
                .thenApply(grown -> {
                    cache.putTopic(grown);
                    return grown;
                });
    }

    /**
     * Moves one partition to {@code targetBrokerId} (the controller raises its leader epoch; the
     * brokers hand it over); the cache has the new owner when the future completes.
     */
    public CompletableFuture<TopicInfo> reassign(String topic, int partition, int targetBrokerId) {
        return controller.submit(new ReassignPartition(topic, partition, targetBrokerId), TopicInfo.class)
                .thenApply(moved -> {
                    cache.putTopic(moved);
                    return moved;
                });
    }

    /** Sets and removes topic config overrides (validated first); the cache has them when the future completes. */
    public CompletableFuture<TopicInfo> alterConfigs(TopicInfo topic, Map<String, String> set, List<String> delete) {
        try {
            Map<String, String> merged = new java.util.HashMap<>(topic.configs());
            delete.forEach(merged::remove);
            merged.putAll(set);
            validateConfigs(merged);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return controller.submit(new AlterTopicConfigs(topic.name(), set, delete), TopicInfo.class).thenApply(t -> {
            cache.putTopic(t);
            return t;
        });
    }

    public CompletableFuture<Void> delete(TopicInfo topic) {
        return controller.submit(new DeleteTopic(topic.name())).thenApply(v -> {
            cache.removeTopic(topic.topicId());
            return null;
        });
    }

    private static Set<String> knownConfigs() {
        Set<String> keys = new TreeSet<>();
        for (Field f : TopicConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().endsWith("_CONFIG")) {
                try {
                    keys.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        keys.add("leader.replication.throttled.replicas");
        keys.add("follower.replication.throttled.replicas");
        return Set.copyOf(keys);
    }
}
